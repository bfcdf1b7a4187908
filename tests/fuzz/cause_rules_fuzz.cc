// Fuzz target: a cause-rule file (`--rules FILE`, rules/causes.toml), loaded
// after the shipped rules and used to classify a few messages.
#include <string>

#include "fuzz_input.h"
#include "merge/cause_rules.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace capmap;
  const std::string name = "fuzz-rules.toml";
  fuzz::expect_refusal_or_success(name, [&] {
    CauseRules rules;
    rules.add_file(fuzz::as_text(data, size), name);
    rules.add_builtin();
    for (const char* message : {"", "aten::foo not supported", "x (y) 'z' 1.5 /a/b.py:3"}) {
      CauseQuery query;
      query.path = "onnx";
      query.status = "export-fail";
      query.error_type = "RuntimeError";
      query.message = message;
      (void)rules.classify(query);
    }
    (void)rules.remedy_templates();
  });
  return 0;
}

// Fuzz target: a snapshot as `capmap diff`, `causes`, `report`, `render` and
// `repro --check` read it, then every view of it they build.
#include <nlohmann/json.hpp>

#include "common/json_document.h"
#include "snapshot/snapshot_fields.h"
#include "diff/diff_report.h"
#include "diff/junit_report.h"
#include "diff/snapshot_diff.h"
#include "snapshot/snapshot_file.h"
#include "fuzz_input.h"
#include "merge/cause_summary.h"
#include "render/html_page.h"
#include "render/markdown_summary.h"
#include "render/page_model.h"
#include "render/rst_page.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace capmap;
  const std::string name = fuzz::kInputName;
  const auto text = fuzz::as_text(data, size);
  // diff, causes, report, repro: the checked reader, then what they compute.
  fuzz::expect_refusal_or_success(name, [&] {
    nlohmann::json snapshot = parse_snapshot(text, name);
    SnapshotDiff diff = diff_snapshots(snapshot, snapshot);
    (void)diff_as_text(diff);
    (void)diff_as_markdown(diff);
    (void)diff_as_json(diff).dump();
    (void)snapshot_as_junit(snapshot);
    (void)summarise_causes(snapshot["cases"]);
  });
  // render: the same parse and field check, then its own checks of the outline.
  fuzz::expect_refusal_or_success(name, [&] {
    nlohmann::json snapshot = parse_json_document(text, name);
    check_snapshot_fields(snapshot, name);
    try {
      PageModel model = build_page_model(snapshot, UrlTemplates{});
      (void)render_html_page(model);
      (void)render_markdown_summary(model);
      (void)render_rst_page(model);
    } catch (const UserError& e) {
      // render_command prefixes the file name to the model's "snapshot ..." errors.
      throw UserError(name + ": " + e.what());
    }
  });
  return 0;
}

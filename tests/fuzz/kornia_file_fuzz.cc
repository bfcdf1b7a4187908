// Fuzz target: either side of `capmap diff`, a snapshot or a file in Kornia's
// export_support.json layout, diffed against itself and reported.
#include <nlohmann/json.hpp>

#include "diff/diff_report.h"
#include "diff/snapshot_diff.h"
#include "snapshot/snapshot_file.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace capmap;
  const std::string name = fuzz::kInputName;
  fuzz::expect_refusal_or_success(name, [&] {
    nlohmann::json side = parse_snapshot_or_kornia_survey(fuzz::as_text(data, size), name);
    SnapshotDiff diff = diff_snapshots(side, side);
    (void)diff_as_text(diff);
    (void)diff_as_markdown(diff);
    (void)diff_as_json(diff).dump();
  });
  return 0;
}

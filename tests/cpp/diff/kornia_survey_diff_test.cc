// diff compares Kornia's export_support.json layout with a capmap run.
#include <gtest/gtest.h>

#include "../snapshot/survey_fixtures.h"
#include "diff/diff_report.h"
#include "diff/snapshot_diff.h"
#include "snapshot/kornia_survey_file.h"

namespace capmap {
namespace {

using testing::capmap_path;
using testing::capmap_snapshot;
using testing::kornia_file;

TEST(KorniaSurveyFile, DiffAgainstACapmapRunComparesStatusesAndListsOneSidedCases) {
  auto kornia = snapshot_from_kornia_survey(kornia_file(), "export_support.json");
  SnapshotDiff diff = diff_snapshots(kornia, capmap_snapshot(nullptr));
  ASSERT_EQ(diff.count(ChangeKind::kFix), 1u);
  EXPECT_EQ(diff.count(ChangeKind::kCauseChanged), 0u);  // wording is not compared
  EXPECT_EQ(diff.count(ChangeKind::kBreaksChanged), 0u);
  for (const auto& c : diff.changes) {
    if (c.kind == ChangeKind::kFix) {
      EXPECT_EQ(c.case_name, "rgb_to_hsv");
      EXPECT_EQ(c.old_status, "fail");
      EXPECT_EQ(c.old_cause, "no ONNX lowering for torch.linalg.svd");
    }
    if (c.kind == ChangeKind::kRemovedCase) {
      EXPECT_EQ(c.case_name, "only_in_kornia");
    }
    if (c.kind == ChangeKind::kNewCase) {
      EXPECT_EQ(c.case_name, "only_in_capmap");
    }
  }
  EXPECT_EQ(diff.count(ChangeKind::kRemovedCase), 1u);
  EXPECT_EQ(diff.count(ChangeKind::kNewCase), 1u);
  // Only what both sides say: torch differs; capmap's tool and run key are not news.
  ASSERT_EQ(diff.header.size(), 1u);
  EXPECT_EQ(diff.header[0].key, "versions.torch");

  // Against a quick-tier run, Kornia's other cases are outside its selection.
  nlohmann::json quick = {{"registry_cases", 1371},
                          {"cases", 4},
                          {"only", nlohmann::json::array()},
                          {"tags", {"quick"}},
                          {"shard", nullptr}};
  SnapshotDiff partial = diff_snapshots(kornia, capmap_snapshot(quick));
  EXPECT_EQ(partial.count(ChangeKind::kRemovedCase), 0u);
  EXPECT_EQ(partial.count(ChangeKind::kOutsideNewSelection), 1u);
  EXPECT_FALSE(partial.selection_note.empty());
  EXPECT_NE(diff_as_text(partial).find(
                "Only in the old side (outside the new selection) (1):\n  only_in_kornia\n"),
            std::string::npos);
}

TEST(KorniaSurveyFile, ARunWithNoPathInCommonComparesNoPath) {
  auto kornia = snapshot_from_kornia_survey(kornia_file(), "export_support.json");
  auto eager_only = capmap_snapshot(nullptr);
  eager_only["header"]["paths"] = {"eager"};
  for (auto& c : eager_only["cases"]) c["paths"] = {{"eager", capmap_path("ok")}};
  SnapshotDiff diff = diff_snapshots(kornia, eager_only);
  for (const auto& c : diff.changes) EXPECT_TRUE(c.path.empty()) << c.case_name << " " << c.path;
  bool paths_line = false;
  for (const auto& h : diff.header) paths_line = paths_line || h.key == "paths";
  EXPECT_TRUE(paths_line);
}

}  // namespace
}  // namespace capmap

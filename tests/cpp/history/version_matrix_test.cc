// The version matrix: columns in torch order, rows with their phrase,
// regressions first, Kornia's file paired beside its own torch.
#include "history/version_matrix.h"

#include <gtest/gtest.h>

#include "common/user_error.h"
#include "history/history_pages.h"

namespace capmap {
namespace {

using Statuses = std::map<std::string, std::string>;  // case → onnx status

VersionColumn column_of(const std::string& torch, const Statuses& onnx, std::size_t registry = 0) {
  nlohmann::json cases = nlohmann::json::array();
  for (const auto& [name, status] : onnx) {
    nlohmann::json record = {{"status", status}, {"page_status", status}};
    if (status != "ok") record["cause"] = "cause of " + name + " at " + torch;
    cases.push_back({{"name", name},
                     {"operator", name},
                     {"group", "color"},
                     {"package", "color"},
                     {"variant", ""},
                     {"ref", "kornia.color." + name},
                     {"paths", {{"eager", {{"status", "ok"}}}, {"onnx", record}}}});
  }
  VersionColumn column;
  column.file = "torch-" + torch + ".json";
  column.torch = torch;
  column.label = "torch " + torch;
  column.cases = onnx.size();
  column.registry_cases = registry ? registry : onnx.size();
  column.sample = column.cases < column.registry_cases;
  column.snapshot = {{"header",
                      {{"paths", {"eager", "onnx"}},
                       {"library", {{"name", "kornia"}}},
                       {"versions", {{"torch", torch}}}}},
                     {"cases", cases}};
  column.cells = cells_by_name(column.snapshot);
  return column;
}

TEST(SupportSummary, SaysWhereItWorks) {
  EXPECT_EQ(support_summary({{"2.9.1", "fail"}, {"2.11.0", "ok"}, {"2.13.0", "ok-breaks"}}),
            "works since torch 2.11.0");
  EXPECT_EQ(support_summary({{"2.9.1", "ok"}, {"2.11.0", "ok"}, {"2.13.0", "fail"}}),
            "works in torch 2.9.1, broke in 2.13.0");
  EXPECT_EQ(support_summary({{"2.9.1", "ok"}, {"2.12.0", "fail"}, {"2.14.1", "ok"}}),
            "works in torch 2.9.1, broke in 2.12.0, works again in 2.14.1");
  EXPECT_EQ(support_summary({{"2.9.1", "ok"}, {"2.13.0", "ok-unverified"}}),
            "works in every version surveyed (2.9.1–2.13.0)");
  EXPECT_EQ(support_summary({{"2.9.1", "fail"}, {"2.13.0", "mismatch"}}),
            "fails in every version surveyed (2.9.1–2.13.0)");
  EXPECT_EQ(support_summary({{"2.13.0", "constant"}}),
            "fails in torch 2.13.0 (the only version surveyed)");
}

TEST(VersionMatrix, OrdersColumnsByTorchAndPutsRegressionsFirst) {
  std::vector<VersionColumn> columns;
  columns.push_back(
      column_of("2.13.0", {{"a", "ok"}, {"b", "fail"}, {"c", "ok"}, {"d", "ok-breaks"}}));
  columns.push_back(column_of("2.9.1", {{"a", "ok"}, {"b", "ok"}, {"c", "fail"}, {"d", "ok"}}));
  auto matrix = build_version_matrix(std::move(columns));
  ASSERT_EQ(matrix.columns.size(), 2u);
  EXPECT_EQ(matrix.columns[0].torch, "2.9.1");
  ASSERT_EQ(matrix.rows.size(), 4u);
  EXPECT_EQ(matrix.rows[0].name, "b");
  EXPECT_EQ(matrix.rows[0].kind, VersionChange::kRegression);
  EXPECT_EQ(matrix.rows[0].summary, "works in torch 2.9.1, broke in 2.13.0");
  EXPECT_EQ(matrix.rows[1].name, "c");
  EXPECT_EQ(matrix.rows[1].kind, VersionChange::kFixed);
  EXPECT_EQ(matrix.rows[2].name, "d");
  EXPECT_EQ(matrix.rows[2].kind, VersionChange::kChanged);
  EXPECT_EQ(matrix.rows[3].kind, VersionChange::kSame);
  ASSERT_EQ(matrix.steps.size(), 1u);
  const auto& step = matrix.steps[0];
  EXPECT_EQ(step.compared, 4u);
  EXPECT_EQ(step.changed, 3u);
  EXPECT_EQ(step.regressions, 1u);
  EXPECT_EQ(step.fixes, 1u);
  EXPECT_NE(describe_step(step).find("fail: cause of b at 2.13.0 (1)"), std::string::npos)
      << describe_step(step);
}

TEST(VersionMatrix, ASampleLeavesGapsThatThePhraseSkips) {
  std::vector<VersionColumn> columns;
  columns.push_back(column_of("2.9.1", {{"a", "fail"}, {"b", "ok"}}));
  columns.push_back(column_of("2.11.0", {{"a", "ok"}}, 2));
  columns.push_back(column_of("2.14.1", {{"a", "ok"}, {"b", "ok"}}));
  auto matrix = build_version_matrix(std::move(columns));
  EXPECT_TRUE(matrix.columns[1].sample);
  const MatrixRow* b = nullptr;
  for (const auto& row : matrix.rows) {
    if (row.name == "b") b = &row;
  }
  ASSERT_NE(b, nullptr);
  EXPECT_FALSE(b->cells[1].has_value());
  EXPECT_EQ(b->summary, "works in every version surveyed (2.9.1–2.14.1)");
  EXPECT_EQ(matrix.steps[0].compared, 1u);
  const std::string markdown = history_markdown(matrix, "t");
  EXPECT_NE(markdown.find("torch 2.11.0 (sample)"), std::string::npos);
  EXPECT_NE(markdown.find("| b | onnx | ok | — | ok |"), std::string::npos) << markdown;
}

TEST(VersionColumn, AnUnfinishedRunsMissingRecordsAreNotSurveyed) {
  nlohmann::json snapshot = {
      {"header", {{"paths", {"eager", "onnx"}}, {"versions", {{"torch", "2.14.1"}}}}},
      {"cases",
       {{{"name", "a"}, {"paths", {{"onnx", {{"status", "ok"}, {"page_status", "ok"}}}}}},
        {{"name", "b"}, {"paths", {{"onnx", {{"status", "missing"}, {"page_status", "n/a"}}}}}}}}};
  auto cells = cells_by_name(snapshot);
  EXPECT_EQ(cells["a"].size(), 1u);
  EXPECT_TRUE(cells["b"].empty());
}

TEST(VersionMatrix, RefusesTwoSnapshotsOfOneTorchOrNoSnapshotAtAll) {
  std::vector<VersionColumn> twice;
  twice.push_back(column_of("2.9.1", {{"a", "ok"}}));
  twice.push_back(column_of("2.9.1", {{"a", "fail"}}));
  EXPECT_THROW(build_version_matrix(std::move(twice)), UserError);
  std::vector<VersionColumn> reference_only;
  reference_only.push_back(column_of("2.9.1", {{"a", "ok"}}));
  reference_only.back().reference = true;
  EXPECT_THROW(build_version_matrix(std::move(reference_only)), UserError);
}

TEST(VersionMatrix, KorniasFileSitsBesideItsTorchAndStaysOffTheAxis) {
  std::vector<VersionColumn> columns;
  columns.push_back(column_of("2.13.0", {{"a", "ok"}}));
  columns.push_back(column_of("2.9.1", {{"a", "ok"}}));
  VersionColumn reference = column_of("2.9.1", {{"a", "fail"}});
  reference.reference = true;
  reference.cells.clear();  // the matrix files them under capmap's names
  columns.push_back(std::move(reference));
  auto matrix = build_version_matrix(std::move(columns));
  ASSERT_EQ(matrix.columns.size(), 3u);
  EXPECT_TRUE(matrix.columns[1].reference);
  EXPECT_EQ(matrix.reference_pairs, 1u);
  ASSERT_EQ(matrix.rows.size(), 1u);
  ASSERT_TRUE(matrix.rows[0].cells[1].has_value());
  EXPECT_EQ(matrix.rows[0].cells[1]->status, "fail");
  EXPECT_EQ(matrix.rows[0].kind, VersionChange::kSame);  // the file is not a version of the axis
  EXPECT_EQ(matrix.steps.size(), 1u);
}

}  // namespace
}  // namespace capmap

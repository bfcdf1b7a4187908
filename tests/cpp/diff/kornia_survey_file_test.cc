// diff reads Kornia's export_support.json layout on either side.
#include "diff/kornia_survey_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "common/user_error.h"
#include "diff/diff_report.h"
#include "diff/snapshot_diff.h"
#include "diff/snapshot_file.h"

namespace capmap {
namespace {

nlohmann::json survey_case(const std::string& name, const std::string& onnx,
                           const std::string& onnx_detail, const std::string& compile,
                           int graph_breaks) {
  return {{"name", name},
          {"package", "kornia.color"},
          {"section", ""},
          {"operator", name},
          {"variant", ""},
          {"note", ""},
          {"ref", "kornia.color." + name},
          {"where", ""},
          {"onnx", onnx},
          {"onnx_detail", onnx_detail},
          {"export", "ok"},
          {"export_detail", ""},
          {"compile", compile},
          {"compile_detail", compile == "ok-breaks" ? "1 graph break: a branch on values" : ""},
          {"graph_breaks", graph_breaks}};
}

// Kornia's published file: what its own survey script (and merge --kornia-json) writes.
nlohmann::json kornia_file() {
  return {
      {"device", "cpu"},
      {"generated_at", "2026-01-15"},
      {"kornia", "0.8.2"},
      {"revision", "f00d"},
      {"onnx", "1.23.2"},
      {"onnxruntime", "1.32.0"},
      {"onnxscript", "0.7.2"},
      {"python", "3.11.9"},
      {"torch", "2.12.0"},
      {"opset", 18},
      {"cases",
       {survey_case("rgb_to_hsv", "fail", "no ONNX lowering for torch.linalg.svd", "ok", 0),
        survey_case("rgb_to_gray", "ok", "", "ok-breaks", 1),
        survey_case("rgb_to_lab", "mismatch", "runs, but the result differs from eager", "ok", 0),
        survey_case("only_in_kornia", "ok", "", "ok", 0)}}};
}

nlohmann::json capmap_path(const std::string& status, const std::string& cause = "",
                           int breaks = -1) {
  nlohmann::json p = {{"status", status}, {"page_status", status}};
  if (!cause.empty()) p["cause"] = cause;
  if (breaks >= 0) p["graph_breaks"] = breaks;
  return p;
}

nlohmann::json capmap_case(const std::string& name, const std::string& onnx,
                           const std::string& onnx_cause, const std::string& compile, int breaks) {
  return {{"name", name},
          {"group", "color"},
          {"tags", {"quick"}},
          {"paths",
           {{"eager", capmap_path("ok")},
            {"onnx", capmap_path(onnx, onnx_cause)},
            {"export", capmap_path("ok")},
            {"compile", capmap_path(compile, "", breaks)}}}};
}

nlohmann::json capmap_snapshot(nlohmann::json selection) {
  return {{"schema_version", 1},
          {"header",
           {{"tool", "capmap 0.1.0"},
            {"run_key", "0123456789abcdef"},
            {"library", {{"name", "kornia"}, {"version", "0.8.2"}, {"revision", "f00d"}}},
            {"versions", {{"torch", "2.13.0"}, {"onnx", "1.23.2"}}},
            {"settings", {{"opset", 18}, {"export_strict", false}}},
            {"paths", {"eager", "onnx", "export", "compile"}},
            {"selection", std::move(selection)}}},
          {"cases",
           {// fixed in the capmap run
            capmap_case("rgb_to_hsv", "ok", "", "ok", 0),
            // same statuses, the cause worded by capmap's rules
            capmap_case("rgb_to_lab", "mismatch", "Output 0 differs from eager", "ok", 0),
            capmap_case("rgb_to_gray", "ok", "", "ok-breaks", 1),
            capmap_case("only_in_capmap", "fail", "No ONNX lowering", "ok", 0)}}};
}

TEST(KorniaSurveyFile, ReadsAsASnapshotWithPageStatuses) {
  ASSERT_TRUE(is_kornia_survey(kornia_file()));
  EXPECT_FALSE(is_kornia_survey(capmap_snapshot(nullptr)));
  auto snapshot = snapshot_from_kornia_survey(kornia_file(), "export_support.json");
  EXPECT_EQ(snapshot["header"]["versions"]["torch"], "2.12.0");
  EXPECT_EQ(snapshot["header"]["library"]["version"], "0.8.2");
  EXPECT_EQ(snapshot["header"]["settings"]["opset"], 18);
  const auto& hsv = snapshot["cases"][0];
  EXPECT_EQ(hsv["name"], "rgb_to_hsv");
  EXPECT_EQ(hsv["paths"]["onnx"]["page_status"], "fail");
  EXPECT_EQ(hsv["paths"]["onnx"]["cause"], "no ONNX lowering for torch.linalg.svd");
  EXPECT_FALSE(hsv["paths"]["export"].contains("cause"));
  EXPECT_EQ(snapshot["cases"][1]["paths"]["compile"]["graph_breaks"], 1);
}

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

class KorniaFileLoad : public ::testing::Test {
 protected:
  void SetUp() override {
    file_ = std::filesystem::temp_directory_path() /
            ("capmap_kornia_" + std::to_string(getpid()) + ".json");
  }
  void TearDown() override { std::filesystem::remove(file_); }
  std::string error_for(const nlohmann::json& contents) {
    std::ofstream(file_) << contents.dump();
    try {
      load_snapshot_or_kornia_survey(file_);
    } catch (const UserError& e) {
      return e.what();
    }
    return "(loaded)";
  }
  std::filesystem::path file_;
};

TEST_F(KorniaFileLoad, EitherLayoutLoadsAndBadStatusesAreOneLine) {
  EXPECT_EQ(error_for(kornia_file()), "(loaded)");
  EXPECT_EQ(error_for(capmap_snapshot(nullptr)), "(loaded)");
  auto bad = kornia_file();
  bad["cases"][2]["export"] = "partial";
  EXPECT_EQ(error_for(bad), file_.string() +
                                ": case 'rgb_to_lab': export status \"partial\" is not one of ok, "
                                "ok-breaks, ok-unverified, mismatch, fail, crashed, timeout, oom, "
                                "n/a");
  auto twice = kornia_file();
  twice["cases"].push_back(twice["cases"][0]);
  EXPECT_EQ(error_for(twice), file_.string() + ": case 'rgb_to_hsv' appears twice");
  auto nameless = kornia_file();
  nameless["cases"][1].erase("name");
  EXPECT_EQ(error_for(nameless), file_.string() + ": cases[1] has no 'name'");
  // A snapshot with a malformed selection is named too.
  auto snapshot = capmap_snapshot(nlohmann::json::object({{"cases", 1}}));
  EXPECT_EQ(error_for(snapshot), file_.string() + ": selection.registry_cases is not a count");
  // The plain snapshot reader still refuses Kornia's layout.
  std::ofstream(file_) << kornia_file().dump();
  EXPECT_THROW(load_snapshot(file_), UserError);
}

}  // namespace
}  // namespace capmap

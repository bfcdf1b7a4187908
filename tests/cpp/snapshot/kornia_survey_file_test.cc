// Kornia's export_support.json layout reads as a snapshot.
#include "snapshot/kornia_survey_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "common/user_error.h"
#include "snapshot/snapshot_file.h"
#include "survey_fixtures.h"

namespace capmap {
namespace {

using testing::capmap_snapshot;
using testing::kornia_file;

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

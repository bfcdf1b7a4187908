#include "store/run_difference.h"

#include <gtest/gtest.h>

namespace capmap {
namespace {

nlohmann::json environment(const std::string& revision, const std::string& version,
                           const std::string& torch, int opset) {
  return {{"library", {{"name", "kornia"}, {"revision", revision}, {"version", version}}},
          {"versions", {{"torch", torch}, {"onnx", "1.23.2"}}},
          {"settings", {{"opset", opset}}}};
}

TEST(RunDifference, NamesEveryFieldThatDiffersInNameOrder) {
  auto a = environment("abc", "0.9.0", "2.12.0", 17);
  auto b = environment("def", "0.9.0", "2.13.0", 18);
  EXPECT_EQ(environment_differences(a, b, kRunKeyLibraryFields),
            (std::vector<std::string>{"library.revision abc vs def", "settings.opset 17 vs 18",
                                      "torch 2.12.0 vs 2.13.0"}));
}

TEST(RunDifference, TheCallerChoosesWhichLibraryFieldsCount) {
  // An edit moves the revision, not the release: change selection reads the release.
  auto a = environment("abc", "0.9.0", "2.13.0", 18);
  auto b = environment("def", "0.9.0", "2.13.0", 18);
  EXPECT_TRUE(environment_differences(a, b, kReleaseLibraryFields).empty());
  EXPECT_EQ(environment_differences(a, b, kRunKeyLibraryFields).size(), 1u);
}

TEST(RunDifference, APackageOnOneSideOnlyIsADifference) {
  auto a = environment("abc", "0.9.0", "2.13.0", 18);
  auto b = a;
  b["versions"]["onnxscript"] = "0.7.2";
  EXPECT_EQ(environment_differences(a, b, kRunKeyLibraryFields),
            (std::vector<std::string>{"onnxscript null vs 0.7.2"}));
}

TEST(RunDifference, APackageOnlyOneRunHasSeparatesNoResults) {
  // ExecuTorch in an environment of its own: it decides only its own path's cells.
  auto main_env = environment("abc", "0.9.0", "2.13.0", 18);
  auto side_env = main_env;
  side_env["versions"]["executorch"] = "1.5.1";
  EXPECT_EQ(version_difference(main_env, side_env), "");
  EXPECT_EQ(version_difference(side_env, main_env), "");
  side_env["versions"]["onnx"] = "1.24.0";  // a package both have still counts
  EXPECT_EQ(version_difference(main_env, side_env), "onnx 1.23.2 vs 1.24.0");
  side_env["versions"]["onnx"] = "1.23.2";
  side_env["versions"]["torch"] = nullptr;  // torch is never optional
  EXPECT_EQ(version_difference(main_env, side_env), "torch 2.13.0 vs null");
}

}  // namespace
}  // namespace capmap

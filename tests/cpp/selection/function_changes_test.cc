#include "selection/function_changes.h"

#include <gtest/gtest.h>

namespace capmap {
namespace {

using nlohmann::json;

ChangeSelection two_cases_by_file() {
  ChangeSelection s;
  s.to_run = {json{{"name", "blur"}}, json{{"name", "gray"}}};
  s.library_changed = 2;
  s.runs_changed_file = {"blur", "gray"};
  return s;
}

TEST(FunctionChanges, OnlyChangedSinceAloneIsNarrowed) {
  // The helper is never asked: each of these keeps the selection as it is.
  const CaseSource unreachable{"/nonexistent/python", {}, json::object(), 1};
  for (const ChangeRequest& request :
       {ChangeRequest{{}, "", false, true}, ChangeRequest{{"a.py"}, "HEAD", false, true},
        ChangeRequest{{}, "HEAD", true, true}, ChangeRequest{{}, "HEAD", false, false}}) {
    auto s = two_cases_by_file();
    testing::internal::CaptureStderr();
    narrow_to_functions(s, request, unreachable, {"/x/kornia/filters/gaussian.py"});
    EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
    EXPECT_EQ(s.to_run.size(), 2u);
    EXPECT_EQ(s.functions_unchanged, 0u);
  }
}

TEST(FunctionChanges, AHelperThatFailsCostsOnlyTheNarrowing) {
  auto s = two_cases_by_file();
  testing::internal::CaptureStderr();
  narrow_to_functions(s, {{}, "HEAD", false, true}, {"false", {}, json::object(), 1},
                      {"/x/kornia/filters/gaussian.py"});
  const std::string said = testing::internal::GetCapturedStderr();
  EXPECT_EQ(s.to_run.size(), 2u);
  EXPECT_EQ(s.library_changed, 2u);
  EXPECT_NE(
      said.find(
          "cannot compare functions (false -m capmap.selection.function_change exited with 1)"),
      std::string::npos)
      << said;
}

TEST(FunctionChanges, ByDefaultOnlyTheCasesWithRecordedFunctionsAreNarrowed) {
  auto s = two_cases_by_file();
  s.recorded_functions["blur"] = {{"kornia/filters/gaussian.py", "gaussian_blur2d"}};
  testing::internal::CaptureStderr();
  // The helper fails, which shows it was asked (about blur alone, the only recorded case).
  narrow_to_functions(s, {{}, "HEAD", false, false}, {"false", {}, json::object(), 1},
                      {"/x/kornia/filters/gaussian.py"});
  const std::string said = testing::internal::GetCapturedStderr();
  EXPECT_NE(said.find("of the 2 cases that run a changed file, 1 have the functions they run "
                      "recorded"),
            std::string::npos)
      << said;
  EXPECT_NE(said.find("cannot compare functions"), std::string::npos) << said;
  EXPECT_EQ(s.to_run.size(), 2u);

  // --by-file: the helper is never asked.
  auto by_file = two_cases_by_file();
  by_file.recorded_functions = s.recorded_functions;
  testing::internal::CaptureStderr();
  narrow_to_functions(by_file, {{}, "HEAD", false, false, true},
                      {"/nonexistent/python", {}, json::object(), 1},
                      {"/x/kornia/filters/gaussian.py"});
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  EXPECT_EQ(by_file.to_run.size(), 2u);
}

}  // namespace
}  // namespace capmap

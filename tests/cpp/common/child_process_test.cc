#include "common/child_process.h"

#include <gtest/gtest.h>

namespace capmap {
namespace {

TEST(ChildProcess, CapturesOutputAndExitCode) {
  int code = -1;
  auto out = run_and_capture({"sh", "-c", "echo hello; exit 3"}, code);
  EXPECT_EQ(out, "hello\n");
  EXPECT_EQ(code, 3);
  run_and_capture({"/nonexistent/program"}, code);
  EXPECT_EQ(code, 127);
}

TEST(ChildProcess, DropsStderrWhenAsked) {
  int code = -1;
  auto out = run_and_capture({"sh", "-c", "echo out; echo err >&2; exit 0"}, code, true);
  EXPECT_EQ(out, "out\n");
  EXPECT_EQ(code, 0);
}

}  // namespace
}  // namespace capmap

#include "run/repro_writer.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "../common/temp_dir.h"

namespace capmap {
namespace {

// Stands for the Python interpreter: notes how it was started, then behaves
// like the script writer (waits for the end of the run on stdin) or like one
// that never ends on its own.
constexpr const char* kWriter = R"(#!/bin/sh
dir=$(dirname "$0")
echo "$@" > "$dir/args"
nice > "$dir/nice"
echo "$OMP_NUM_THREADS" > "$dir/omp"
echo $$ > "$dir/pid"
)";
constexpr const char* kLastPass = "cat > /dev/null\necho finished > \"$dir/finished\"\nexit 3\n";
constexpr const char* kStubborn = "trap '' TERM\nwhile :; do sleep 0.1; done\n";

std::string fake_python(const std::filesystem::path& dir, const std::string& behaviour) {
  auto file = dir / "python";
  std::ofstream(file) << kWriter << behaviour;
  chmod(file.c_str(), 0755);
  return file.string();
}

std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  auto s = text.str();
  while (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

// Waits up to 20 s for the fake to have noted its start (its pid is written last).
bool started(const std::filesystem::path& dir) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (read_text(dir / "pid").empty()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

bool gone(const std::filesystem::path& dir) {
  return kill(std::stoi(read_text(dir / "pid")), 0) != 0 && errno == ESRCH;
}

TEST(ReproWriter, RunsTheFollowerAtTheLowestPriorityAndWaitsForItsLastPass) {
  testing::TempDir dir;
  InterruptWatcher interrupts;
  ReproWriter writer(fake_python(dir.path(), kLastPass), dir.path() / "results.db", "abc123");
  ASSERT_TRUE(started(dir.path()));
  EXPECT_EQ(read_text(dir.path() / "args"), "-m capmap.repro --all --follow --store " +
                                                (dir.path() / "results.db").string() +
                                                " --run-key abc123");
  EXPECT_EQ(read_text(dir.path() / "nice"), "19");
  EXPECT_EQ(read_text(dir.path() / "omp"), "1");
  // The run is not over until finish(): the writer is still reading its stdin.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "finished"));
  EXPECT_EQ(writer.finish(interrupts), 3);
  EXPECT_EQ(read_text(dir.path() / "finished"), "finished");
  EXPECT_TRUE(gone(dir.path()));
}

TEST(ReproWriter, StopEndsAWriterThatIgnoresSigterm) {
  testing::TempDir dir;
  auto begin = std::chrono::steady_clock::now();
  {
    ReproWriter writer(fake_python(dir.path(), kStubborn), dir.path() / "results.db", "k");
    ASSERT_TRUE(started(dir.path()));
    writer.stop();
    EXPECT_TRUE(gone(dir.path()));
  }
  // It waits out a grace of 3 s, then kills; the bound is ten times that, so a loaded machine
  // still passes while a writer that is never killed does not.
  EXPECT_LT(std::chrono::steady_clock::now() - begin, std::chrono::seconds(30));
}

TEST(ReproWriter, AnInterruptWhileWaitingStopsTheWriter) {
  testing::TempDir dir;
  InterruptWatcher interrupts;
  ReproWriter writer(fake_python(dir.path(), kStubborn), dir.path() / "results.db", "k");
  ASSERT_TRUE(started(dir.path()));
  raise(SIGINT);
  EXPECT_EQ(writer.finish(interrupts), -1);
  EXPECT_TRUE(gone(dir.path()));
}

}  // namespace
}  // namespace capmap

#include "run/change_replay.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>

#include "common/user_error.h"

namespace capmap {
namespace {

using nlohmann::json;

json make_case(const std::string& name) {
  return {{"name", name},
          {"group", "filters"},
          {"note", ""},
          {"where", "reg/filters.py:3"},
          {"skip", nullptr}};
}

// A measured case: the files its eager call ran, and `seconds` on each of two paths.
json known_case(const std::string& name, const std::string& file, double seconds) {
  json c = make_case(name);
  c["files"] = {{file, "aa"}};
  c["paths"] = {{"eager", {{"status", "ok"}, {"seconds", seconds}}},
                {"onnx", {{"status", "ok"}, {"seconds", seconds}}}};
  return c;
}

json run_info() {
  return {{"library", {{"name", "kornia"}, {"revision", "abc"}}},
          {"versions", {{"torch", "2.13.0"}}},
          {"settings", {{"opset", 18}}}};
}

// A stream file in the temporary folder, removed when the test is done with it.
struct StreamFile {
  explicit StreamFile(std::filesystem::path p) : path(std::move(p)) {}
  std::filesystem::path path;
  StreamFile(const StreamFile&) = delete;
  StreamFile& operator=(const StreamFile&) = delete;
  ~StreamFile() {
    std::error_code ignored;
    std::filesystem::remove(path, ignored);
  }
  std::string string() const { return path.string(); }
};

std::unique_ptr<StreamFile> write_stream(const std::string& text, const std::string& tag = "") {
  auto path = std::filesystem::temp_directory_path() /
              ("change_replay_" + std::to_string(::getpid()) + "_" +
               ::testing::UnitTest::GetInstance()->current_test_info()->name() + tag + ".tsv");
  std::ofstream(path) << text;
  return std::make_unique<StreamFile>(path);
}

TEST(ChangeReplay, ReadsTheFilesColumnWhereverItIsAndSkipsComments) {
  auto path = write_stream(
      "# a stream of commits\ncommit\tdate\tfiles\tsubject\n"
      "c1\t2026-01-01\tkornia/a.py,kornia/b.py\tfix a and b\n"
      "c2\t2026-01-02\tkornia/c.py\tc\n");
  auto changes = read_change_stream(path->string());
  ASSERT_EQ(changes.size(), 2u);
  EXPECT_EQ(changes[0].id, "c1");
  EXPECT_EQ(changes[0].files, (std::vector<std::string>{"kornia/a.py", "kornia/b.py"}));
  EXPECT_EQ(changes[1].files, (std::vector<std::string>{"kornia/c.py"}));
}

TEST(ChangeReplay, RefusesAStreamWithoutAFilesColumnOrWithAShortRow) {
  auto no_column = write_stream("commit\tdate\nc1\t2026\n", "_a");
  try {
    read_change_stream(no_column->string());
    FAIL() << "no 'files' column was accepted";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find(no_column->string() + ":1: the header names no 'files'"),
              std::string::npos)
        << e.what();
  }
  auto short_row = write_stream("commit\tdate\tfiles\nc1\t2026\n", "_b");
  try {
    read_change_stream(short_row->string());
    FAIL() << "a short row was accepted";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find(":2: 2 columns"), std::string::npos) << e.what();
  }
  EXPECT_THROW(read_change_stream("/nonexistent/stream.tsv"), UserError);
}

TEST(ChangeReplay, EachChangeGetsItsSelectionAndItsWallOnJobsAndOnAMatrix) {
  json baseline = {{"header", run_info()},
                   {"cases",
                    {known_case("blur", "kornia/filters/blur.py", 10),
                     known_case("box", "kornia/filters/blur.py", 6),
                     known_case("sobel", "kornia/filters/blur.py", 4),
                     known_case("gray", "kornia/color/gray.py", 1)}}};
  baseline["header"]["library"]["revision"] = "older";
  std::vector<json> cases = {make_case("blur"), make_case("box"), make_case("sobel"),
                             make_case("gray")};
  std::vector<ReplayedChange> changes = {{"filters", {"kornia/filters/blur.py"}},
                                         {"color", {"kornia/color/gray.py"}},
                                         {"docs", {"kornia/README.py"}}};
  auto out = replay_changes(changes, cases, baseline, run_info(), {"eager", "onnx"}, 1, 2);
  ASSERT_EQ(out.size(), 3u);
  // blur 20 s, box 12 s, sobel 8 s: one job runs them in a row; two shards split 20 | 12 + 8.
  EXPECT_EQ(out[0].cases, 3u);
  EXPECT_DOUBLE_EQ(out[0].busy_s, 40);
  EXPECT_DOUBLE_EQ(out[0].wall_s, 40);
  EXPECT_DOUBLE_EQ(out[0].matrix_wall_s, 20);
  EXPECT_EQ(out[1].cases, 1u);
  EXPECT_DOUBLE_EQ(out[1].wall_s, 2);
  EXPECT_EQ(out[2].cases, 0u);
  EXPECT_DOUBLE_EQ(out[2].wall_s, 0);
  EXPECT_EQ(replay_as_tsv(out, 1, 2).substr(0, replay_as_tsv(out, 1, 2).find('\n')),
            "change\tfiles\tcases\tunknown\tbusy_s\twall_s_1_jobs\twall_s_2x1_jobs");
}

}  // namespace
}  // namespace capmap

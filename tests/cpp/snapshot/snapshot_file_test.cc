// A malformed or missing snapshot is one line naming the file.
#include "snapshot/snapshot_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "common/user_error.h"

namespace capmap {
namespace {

class SnapshotFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    file_ = std::filesystem::temp_directory_path() /
            ("capmap_diff_" + std::to_string(getpid()) + ".json");
  }
  void TearDown() override { std::filesystem::remove(file_); }
  std::string error_for(const std::string& contents) {
    std::ofstream(file_) << contents;
    try {
      load_snapshot(file_);
    } catch (const UserError& e) {
      return e.what();
    }
    return "(loaded)";
  }
  std::filesystem::path file_;
};

TEST_F(SnapshotFileTest, MalformedInputIsOneLineNamingTheFile) {
  const std::string f = file_.string();
  EXPECT_EQ(error_for("{\"schema_version\": 1,"),
            f + ": not valid JSON: parse error at line 1, column 22: syntax error while parsing "
                "object key - unexpected end of input; expected string literal");
  EXPECT_EQ(error_for("[]"), f + ": not a capmap snapshot: the top level is not an object");
  EXPECT_EQ(error_for("{\"schema_version\": 2, \"header\": {}, \"cases\": []}"),
            f + ": snapshot schema version 2 is not supported (expected 1)");
  EXPECT_EQ(error_for("{\"schema_version\": 1, \"header\": {}}"),
            f + ": not a capmap snapshot: no 'cases' list");
  EXPECT_EQ(error_for("{\"schema_version\": 1, \"header\": {}, \"cases\": [{\"name\": \"x\", "
                      "\"paths\": {\"onnx\": {}}}]}"),
            f + ": not a capmap snapshot: case 'x' path 'onnx' has no 'status'");
  EXPECT_EQ(error_for("{\"schema_version\": 1, \"header\": {}, \"cases\": [{\"name\": \"x\", "
                      "\"paths\": {}}, {\"name\": \"x\", \"paths\": {}}]}"),
            f + ": not a capmap snapshot: case 'x' appears twice");
  std::filesystem::remove(file_);
  EXPECT_EQ(error_for("").rfind(f + ": ", 0), 0u);
}

TEST_F(SnapshotFileTest, MissingFileIsOneLine) {
  std::string message;
  try {
    load_snapshot("/nonexistent/old.json");
  } catch (const UserError& e) {
    message = e.what();
  }
  EXPECT_EQ(message, "/nonexistent/old.json: cannot read: No such file or directory");
}

}  // namespace
}  // namespace capmap

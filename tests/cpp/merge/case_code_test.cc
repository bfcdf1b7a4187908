#include "merge/case_code.h"

#include <gtest/gtest.h>

namespace capmap {
namespace {

using nlohmann::json;

TEST(CaseCode, TheCaseGetsTheUnionOfItsPathsCode) {
  json entry = {
      {"paths",
       {{"eager",
         {{"status", "ok"}, {"files", {{"lib/a.py", "11"}}}, {"functions", {{"lib/a.py", "f g"}}}}},
        {"export",
         {{"status", "ok"},
          {"files", {{"lib/a.py", "11"}, {"lib/b.py", "22"}}},
          {"functions", {{"lib/a.py", "f h"}, {"lib/b.py", "K.m"}}}}},
        {"onnx", {{"status", "ok"}}}}}};
  gather_case_code(entry, "blur", nullptr);
  EXPECT_EQ(entry["files"], (json{{"lib/a.py", "11"}, {"lib/b.py", "22"}}));
  EXPECT_EQ(entry["functions"], (json{{"lib/a.py", "f g h"}, {"lib/b.py", "K.m"}}));
  for (const auto& [path, record] : entry["paths"].items()) {
    EXPECT_FALSE(record.contains("files")) << path;
    EXPECT_FALSE(record.contains("functions")) << path;
  }
}

TEST(CaseCode, FilesWithoutFunctionsLeaveTheCaseWithoutFunctions) {
  // One record from a worker that names no functions: a partial list would miss code.
  json entry = {
      {"paths",
       {{"eager", {{"files", {{"lib/a.py", "11"}}}}},
        {"compile", {{"files", {{"lib/a.py", "11"}}}, {"functions", {{"lib/a.py", "f"}}}}}}}};
  gather_case_code(entry, "blur", nullptr);
  EXPECT_EQ(entry["files"], (json{{"lib/a.py", "11"}}));
  EXPECT_FALSE(entry.contains("functions"));
}

TEST(CaseCode, NoRecordWithCodeGivesNoFileList) {
  json entry = {{"paths", {{"eager", {{"status", "skipped"}}}}}};
  gather_case_code(entry, "blur", nullptr);
  EXPECT_FALSE(entry.contains("files"));
  EXPECT_FALSE(entry.contains("functions"));
}

}  // namespace
}  // namespace capmap

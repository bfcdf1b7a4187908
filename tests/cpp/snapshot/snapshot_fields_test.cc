#include "snapshot/snapshot_fields.h"

#include <gtest/gtest.h>

#include <string>

#include "common/user_error.h"

namespace capmap {
namespace {

nlohmann::json good_snapshot() {
  return nlohmann::json::parse(R"({
    "schema_version": 1,
    "header": {"tool": "capmap 0.1.0", "library": {"name": "lib", "version": null},
               "versions": {"torch": "2.13.0", "onnx": null}, "device": null,
               "paths": ["eager", "onnx"], "excludes": [{"name": "X", "reason": "why"}]},
    "cases": [{"name": "relu", "group": "act", "tags": ["quick"], "skip": null,
               "paths": {"onnx": {"status": "export-fail", "page_status": "fail",
                                  "cause": "no lowering", "max_abs_diff": "NaN",
                                  "break_reasons": [{"reason": "r", "gb_id": null}],
                                  "own_field": {"any": "thing"}}}}]})");
}

std::string refusal(const nlohmann::json& snapshot) {
  try {
    check_snapshot_fields(snapshot, "s.json");
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

TEST(SnapshotFields, AWellTypedSnapshotPasses) { EXPECT_EQ(refusal(good_snapshot()), ""); }

TEST(SnapshotFields, ANullWhereAStringBelongsNamesTheFileCaseAndField) {
  auto snapshot = good_snapshot();
  snapshot["cases"][0]["paths"]["onnx"]["cause"] = nullptr;
  EXPECT_EQ(refusal(snapshot),
            "s.json: not a capmap snapshot: case 'relu' path 'onnx': 'cause' should be a string, "
            "not null");
  snapshot = good_snapshot();
  snapshot["cases"][0]["group"] = nullptr;
  EXPECT_NE(refusal(snapshot).find("case 'relu': 'group' should be a string, not null"),
            std::string::npos);
  snapshot = good_snapshot();
  snapshot["header"]["library"]["name"] = nullptr;
  EXPECT_NE(refusal(snapshot).find("header library: 'name'"), std::string::npos);
  snapshot = good_snapshot();
  snapshot["header"]["paths"] = {"eager", nullptr};
  EXPECT_NE(refusal(snapshot).find("'paths' should be a list of strings"), std::string::npos);
}

TEST(SnapshotFields, WrongContainersAreRefusedToo) {
  auto snapshot = good_snapshot();
  snapshot["cases"][0]["paths"]["onnx"]["break_reasons"] = {1, 2};
  EXPECT_NE(refusal(snapshot).find("'break_reasons' should be a list of objects"),
            std::string::npos);
  snapshot = good_snapshot();
  snapshot["cases"][0]["paths"]["onnx"]["break_reasons"][0]["reason"] = 7;
  EXPECT_NE(refusal(snapshot).find("break_reasons: 'reason' should be a string, not a number"),
            std::string::npos);
  snapshot = good_snapshot();
  snapshot["header"]["versions"] = "2.13";
  EXPECT_NE(refusal(snapshot).find("'versions'"), std::string::npos);
}

TEST(SnapshotFields, ACaseFieldProblemIsReportedWithoutAFile) {
  EXPECT_EQ(case_field_problem({{"name", "a"}, {"tags", {"quick"}}}), "");
  EXPECT_EQ(case_field_problem({{"name", "a"}, {"tags", "quick"}}),
            "'tags' should be a list of strings, not a string");
}

}  // namespace
}  // namespace capmap

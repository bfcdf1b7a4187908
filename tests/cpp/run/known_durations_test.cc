#include "run/known_durations.h"

#include <gtest/gtest.h>

namespace capmap {
namespace {

using nlohmann::json;

json snapshot() {
  return json::parse(R"({"cases": [
    {"name": "a", "paths": {"eager": {"status": "ok", "seconds": 1.5},
                            "onnx": {"status": "ok", "seconds": 4}}},
    {"name": "b", "paths": {"eager": {"status": "missing"}}},
    {"name": "c", "paths": {"eager": {"status": "ok", "seconds": 0.5},
                            "onnx": {"status": "ok", "seconds": 0.5}}}
  ]})");
}

TEST(KnownDurations, EveryRecordWithSecondsOfASnapshot) {
  auto table = snapshot_durations(snapshot());
  EXPECT_EQ(table.size(), 4u);
  EXPECT_DOUBLE_EQ(table.at({"a", "onnx"}), 4);
  EXPECT_FALSE(table.contains({"b", "eager"}));
  EXPECT_TRUE(snapshot_durations(json::object()).empty());
}

TEST(KnownDurations, TheStoreOverridesTheBaseline) {
  DurationTable store = {{{"a", "onnx"}, 2.0}, {{"d", "eager"}, 9.0}};
  auto table = overlay_durations(snapshot_durations(snapshot()), store);
  EXPECT_DOUBLE_EQ(table.at({"a", "onnx"}), 2);
  EXPECT_DOUBLE_EQ(table.at({"a", "eager"}), 1.5);
  EXPECT_DOUBLE_EQ(table.at({"d", "eager"}), 9);
}

TEST(KnownDurations, ACaseSumsItsPathsAndIsUnknownWhenOneIs) {
  auto table = snapshot_durations(snapshot());
  EXPECT_DOUBLE_EQ(*case_seconds("a", {"eager", "onnx"}, table), 5.5);
  EXPECT_FALSE(case_seconds("a", {"eager", "compile"}, table).has_value());
  EXPECT_FALSE(case_seconds("b", {"eager"}, table).has_value());
}

TEST(KnownDurations, UnknownCasesCountAtTheMedianOfTheKnown) {
  auto table = snapshot_durations(snapshot());
  std::vector<json> cases = {{{"name", "a"}}, {{"name", "b"}}, {{"name", "c"}}, {{"name", "e"}}};
  std::size_t unknown = 0;
  auto seconds = expected_case_seconds(cases, {"eager", "onnx"}, table, &unknown);
  // Known: a 5.5 and c 1.0; the median of two is the upper one.
  EXPECT_EQ(seconds, (std::vector<double>{5.5, 5.5, 1.0, 5.5}));
  EXPECT_EQ(unknown, 2u);
  EXPECT_EQ(expected_case_seconds(cases, {"eager"}, {}), (std::vector<double>(4, 1.0)));
}

}  // namespace
}  // namespace capmap

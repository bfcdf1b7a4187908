#include "run/shard_split.h"

#include <gtest/gtest.h>

#include <set>

#include "common/user_error.h"

namespace capmap {
namespace {

using nlohmann::json;

std::vector<json> cases_named(const std::vector<std::string>& names) {
  std::vector<json> out;
  for (const auto& n : names) out.push_back({{"name", n}});
  return out;
}

std::vector<std::string> names(const std::vector<json>& cases) {
  std::vector<std::string> out;
  for (const auto& c : cases) out.push_back(c.at("name"));
  return out;
}

TEST(ShardSplit, ParsesItsModes) {
  EXPECT_EQ(parse_shard_by("name"), ShardBy::kName);
  EXPECT_EQ(parse_shard_by("time"), ShardBy::kTime);
  EXPECT_THROW(parse_shard_by("size"), UserError);
}

TEST(ShardSplit, ByNameIsTheHashSlice) {
  auto cases = cases_named({"a", "b", "c", "d", "e", "f"});
  std::vector<std::string> expected;
  for (const auto& c : cases) {
    if (shard_owns({2, 3}, c.at("name").get<std::string>())) expected.push_back(c.at("name"));
  }
  EXPECT_EQ(names(shard_cases(cases, {2, 3}, ShardBy::kName, {}, {"eager"})), expected);
  EXPECT_EQ(shard_cases(cases, {1, 1}, ShardBy::kTime, {}, {"eager"}).size(), 6u);
}

TEST(ShardSplit, ByTimeBalancesTheKnownSecondsAndCoversEveryCaseOnce) {
  // One long case and many short ones: by time the long one has a shard nearly to itself.
  DurationTable durations = {{{"long", "eager"}, 10.0}};
  std::vector<std::string> all = {"long"};
  for (int i = 0; i < 10; ++i) {
    all.push_back("short" + std::to_string(i));
    durations[{all.back(), "eager"}] = 1.0;
  }
  auto cases = cases_named(all);
  std::multiset<std::string> seen;
  std::vector<double> loads;
  for (int i = 1; i <= 2; ++i) {
    auto mine = shard_cases(cases, {i, 2}, ShardBy::kTime, durations, {"eager"});
    double load = 0;
    for (const auto& c : mine) {
      seen.insert(c.at("name"));
      load += durations.at({c.at("name"), "eager"});
    }
    loads.push_back(load);
  }
  EXPECT_EQ(seen, std::multiset<std::string>(all.begin(), all.end()));
  EXPECT_DOUBLE_EQ(loads[0], 10);
  EXPECT_DOUBLE_EQ(loads[1], 10);
}

TEST(ShardSplit, ByTimeDoesNotDependOnTheOrderCasesComeIn) {
  DurationTable durations = {{{"a", "eager"}, 3.0}, {{"b", "eager"}, 2.0}, {{"c", "eager"}, 2.0}};
  auto forward =
      shard_cases(cases_named({"a", "b", "c"}), {2, 2}, ShardBy::kTime, durations, {"eager"});
  auto backward =
      shard_cases(cases_named({"c", "b", "a"}), {2, 2}, ShardBy::kTime, durations, {"eager"});
  EXPECT_EQ(names(forward), (std::vector<std::string>{"b", "c"}));
  EXPECT_EQ(names(backward), (std::vector<std::string>{"c", "b"}));
}

}  // namespace
}  // namespace capmap

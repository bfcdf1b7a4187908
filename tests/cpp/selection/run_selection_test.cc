#include "selection/run_selection.h"

#include <gtest/gtest.h>

#include "common/user_error.h"

namespace capmap {
namespace {

RunSelection selection(long long registry, long long cases, std::vector<std::string> only,
                       std::vector<std::string> tags, std::vector<Shard> shards = {}) {
  RunSelection s;
  s.registry_cases = registry;
  s.cases = cases;
  s.only = std::move(only);
  s.tags = std::move(tags);
  s.shards = std::move(shards);
  return s;
}

nlohmann::json case_entry(const std::string& name, const std::string& group,
                          std::vector<std::string> tags) {
  return {{"name", name}, {"group", group}, {"tags", tags}};
}

TEST(RunSelection, DescribesWhatTheRunCovered) {
  EXPECT_EQ(describe_selection(selection(1371, 41, {}, {"quick"})),
            "41 of 1,371 registry cases (tag quick)");
  EXPECT_EQ(describe_selection(selection(8, 8, {}, {})), "all 8 registry cases");
  EXPECT_EQ(describe_selection(selection(1, 1, {}, {})), "all 1 registry case");
  EXPECT_EQ(describe_selection(selection(8, 1, {"x[1]"}, {})), "1 of 8 registry cases (only x[1])");
  EXPECT_EQ(describe_selection(selection(1234567, 3, {"a", "b"}, {"p", "q"}, {{1, 4}, {3, 4}})),
            "3 of 1,234,567 registry cases (tags p, q; only a, b; shards 1/4, 3/4)");
  // Every case, but only one shard's worth measured: the shard says so.
  EXPECT_EQ(describe_selection(selection(8, 8, {}, {}, {{2, 4}})),
            "8 of 8 registry cases (shard 2/4)");
}

TEST(RunSelection, CombinesRunsAndShards) {
  // Every shard of one split is the whole split.
  auto whole = combine_selections(
      {selection(10, 4, {}, {"quick"}, {{1, 2}}), selection(10, 4, {}, {"quick"}, {{2, 2}})});
  EXPECT_TRUE(whole.shards.empty());
  EXPECT_EQ(whole.tags, std::vector<std::string>{"quick"});
  EXPECT_EQ(whole.registry_cases, 10);
  EXPECT_EQ(whole.cases, 0);  // the caller counts the cases of the union

  auto part = combine_selections(
      {selection(10, 4, {}, {"quick"}, {{3, 4}}), selection(10, 4, {}, {"quick"}, {{1, 4}})});
  EXPECT_EQ(shards_text(part.shards), "1/4, 3/4");

  // Two --only runs into one store: their patterns add up, sorted once.
  auto patterns =
      combine_selections({selection(8, 1, {"x[2]"}, {}), selection(9, 1, {"x[1]", "x[2]"}, {})});
  EXPECT_EQ(patterns.only, (std::vector<std::string>{"x[1]", "x[2]"}));
  EXPECT_EQ(patterns.registry_cases, 9);

  // One run of everything makes the union everything.
  auto everything = combine_selections({selection(8, 1, {"x[1]"}, {}), selection(8, 8, {}, {})});
  EXPECT_TRUE(selects_whole_registry(everything));
}

TEST(RunSelection, RoundTripsThroughTheHeader) {
  auto s = selection(1371, 41, {"color"}, {"quick"}, {{1, 4}, {2, 4}});
  nlohmann::json header = {{"selection", selection_to_json(s)}};
  EXPECT_EQ(header["selection"],
            nlohmann::json::parse(R"({"registry_cases": 1371, "cases": 41, "only": ["color"],
                                      "tags": ["quick"], "shard": "1/4, 2/4"})"));
  auto back = selection_from_json(header, "snapshot.json");
  ASSERT_TRUE(back);
  EXPECT_EQ(describe_selection(*back), describe_selection(s));
  EXPECT_EQ(selection_to_json(selection(8, 8, {}, {}))["shard"], nullptr);
}

TEST(RunSelection, OlderSnapshotsHaveNoneAndMalformedOnesAreNamed) {
  EXPECT_FALSE(selection_from_json(nlohmann::json::object(), "old.json"));
  EXPECT_FALSE(selection_from_json({{"selection", nullptr}}, "old.json"));
  auto error = [](const nlohmann::json& value) {
    try {
      selection_from_json({{"selection", value}}, "s.json");
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string("(read)");
  };
  EXPECT_EQ(error("all"), "s.json: selection is not an object");
  EXPECT_EQ(error({{"cases", 1}}), "s.json: selection.registry_cases is not a count");
  EXPECT_EQ(error({{"cases", 1}, {"registry_cases", 2}, {"only", "x"}}),
            "s.json: selection.only is not a list");
  EXPECT_EQ(error({{"cases", 1}, {"registry_cases", 2}, {"shard", "2/1"}}),
            "s.json: selection.shard '2/1' is not a list of I/N shards");
}

TEST(RunSelection, CoversTheCasesARunWouldHaveSelected) {
  auto quick_color = selection(10, 2, {"color"}, {"quick"});
  EXPECT_EQ(selection_covers(quick_color, case_entry("rgb", "color.rgb", {"quick"})), true);
  EXPECT_EQ(selection_covers(quick_color, case_entry("rgb", "color.rgb", {})), false);
  EXPECT_EQ(selection_covers(quick_color, case_entry("blur", "filters", {"quick"})), false);
  // A name prefix selects without a group; the tags cannot be known.
  EXPECT_EQ(selection_covers(selection(10, 1, {"x["}, {}), {{"name", "x[1]"}}), true);
  EXPECT_EQ(selection_covers(quick_color, {{"name", "rgb"}}), std::nullopt);

  auto first_half = selection(10, 5, {}, {}, {{1, 2}});
  int owned = 0;
  for (const char* name : {"a", "b", "c", "d", "e", "f"}) {
    bool mine = shard_owns({1, 2}, name);
    EXPECT_EQ(selection_covers(first_half, {{"name", name}}), mine) << name;
    owned += mine;
  }
  EXPECT_GT(owned, 0);
  EXPECT_LT(owned, 6);
}

}  // namespace
}  // namespace capmap

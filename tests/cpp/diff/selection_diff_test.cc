// diff between snapshots that measured different parts of the registry.
#include <gtest/gtest.h>

#include <optional>

#include "diff/diff_report.h"
#include "diff/snapshot_diff.h"
#include "selection/shard.h"

namespace capmap {
namespace {

nlohmann::json entry(const std::string& name, const std::string& group,
                     std::vector<std::string> tags = {}) {
  return {{"name", name},
          {"group", group},
          {"tags", tags},
          {"paths", {{"onnx", {{"status", "ok"}, {"page_status", "ok"}}}}}};
}

// No selection: a snapshot written before capmap recorded one.
nlohmann::json snapshot(std::optional<nlohmann::json> selection, nlohmann::json cases) {
  nlohmann::json header = {{"paths", {"onnx"}}};
  if (selection) header["selection"] = std::move(*selection);
  return {{"schema_version", 1}, {"header", std::move(header)}, {"cases", std::move(cases)}};
}

nlohmann::json selection(long long registry, long long cases, std::vector<std::string> only,
                         std::vector<std::string> tags, nlohmann::json shard = nullptr) {
  return {{"registry_cases", registry},
          {"cases", cases},
          {"only", only},
          {"tags", tags},
          {"shard", shard}};
}

std::vector<std::string> names_of(const SnapshotDiff& diff, ChangeKind kind) {
  std::vector<std::string> out;
  for (const auto& c : diff.changes) {
    if (c.kind == kind) out.push_back(c.case_name);
  }
  return out;
}

TEST(SelectionDiff, CasesTheNewRunDidNotSelectAreNotRemoved) {
  auto whole =
      snapshot(selection(3, 3, {}, {}), {entry("x[1]", "x"), entry("x[2]", "x"), entry("y", "y")});
  auto one = snapshot(selection(3, 1, {"x[1]"}, {}), {entry("x[1]", "x")});
  SnapshotDiff diff = diff_snapshots(whole, one);
  EXPECT_TRUE(names_of(diff, ChangeKind::kRemovedCase).empty());
  EXPECT_EQ(names_of(diff, ChangeKind::kOutsideNewSelection),
            (std::vector<std::string>{"x[2]", "y"}));
  EXPECT_EQ(diff.selection_note,
            "the two sides cover different selections (old: all 3 registry cases; new: 1 of 3 "
            "registry cases (only x[1])); a case only one side selected is listed as outside the "
            "other side's selection, not as new or removed");
  ASSERT_EQ(diff.header.size(), 1u);
  EXPECT_EQ(diff.header[0].key, "selection");
  EXPECT_EQ(diff.header[0].old_value, "all 3 registry cases");
  EXPECT_EQ(diff.header[0].new_value, "1 of 3 registry cases (only x[1])");

  // The other way round the cases are outside the old selection, not new.
  SnapshotDiff back = diff_snapshots(one, whole);
  EXPECT_TRUE(names_of(back, ChangeKind::kNewCase).empty());
  EXPECT_EQ(names_of(back, ChangeKind::kOutsideOldSelection),
            (std::vector<std::string>{"x[2]", "y"}));

  std::string text = diff_as_text(diff);
  EXPECT_NE(text.find("Note: the two sides cover different selections"), std::string::npos);
  EXPECT_NE(text.find("Only in the old side (outside the new selection) (2):\n  x[2]\n  y\n"),
            std::string::npos)
      << text;
  nlohmann::json json = diff_as_json(diff);
  EXPECT_EQ(json["outside_new_selection"], nlohmann::json({"x[2]", "y"}));
  EXPECT_EQ(json["counts"]["removed_cases"], 0);
  EXPECT_EQ(json["selection_note"], diff.selection_note);
  EXPECT_NE(diff_as_markdown(diff).find("> Note: the two sides cover different selections"),
            std::string::npos);
}

TEST(SelectionDiff, ACaseTheNewSelectionCoversIsRemoved) {
  auto old_quick = snapshot(selection(9, 2, {}, {"quick"}),
                            {entry("a", "g", {"quick"}), entry("b", "g", {"quick"})});
  auto new_quick = snapshot(selection(8, 1, {}, {"quick"}), {entry("a", "g", {"quick"})});
  SnapshotDiff diff = diff_snapshots(old_quick, new_quick);
  EXPECT_EQ(names_of(diff, ChangeKind::kRemovedCase), std::vector<std::string>{"b"});
  EXPECT_TRUE(diff.selection_note.empty());  // same filters, the registry shrank
  ASSERT_EQ(diff.header.size(), 1u);
  EXPECT_EQ(diff.header[0].new_value, "1 of 8 registry cases (tag quick)");
}

TEST(SelectionDiff, OlderSnapshotsWithoutASelectionReadAsWhole) {
  auto older = snapshot(std::nullopt, {entry("a", "g"), entry("b", "g")});
  auto newer = snapshot(std::nullopt, {entry("a", "g")});
  SnapshotDiff diff = diff_snapshots(older, newer);
  EXPECT_EQ(names_of(diff, ChangeKind::kRemovedCase), std::vector<std::string>{"b"});
  EXPECT_TRUE(diff.selection_note.empty());
  EXPECT_TRUE(diff.header.empty());

  auto quick = snapshot(selection(2, 1, {}, {"quick"}), {entry("a", "g", {"quick"})});
  SnapshotDiff mixed = diff_snapshots(older, quick);
  EXPECT_EQ(names_of(mixed, ChangeKind::kOutsideNewSelection), std::vector<std::string>{"b"});
  EXPECT_NE(mixed.selection_note.find("old: not recorded; new: 1 of 2 registry cases (tag quick)"),
            std::string::npos)
      << mixed.selection_note;
}

TEST(SelectionDiff, AShardOnlyCallsItsOwnCasesRemoved) {
  std::vector<std::string> owned, other;
  for (const char* name : {"a", "b", "c", "d", "e", "f", "g", "h"}) {
    (shard_owns({1, 2}, name) ? owned : other).push_back(name);
  }
  ASSERT_FALSE(owned.empty());
  ASSERT_FALSE(other.empty());
  nlohmann::json all = nlohmann::json::array();
  for (const char* name : {"a", "b", "c", "d", "e", "f", "g", "h"}) all.push_back(entry(name, "g"));
  nlohmann::json kept = nlohmann::json::array();
  for (std::size_t i = 1; i < owned.size(); ++i) kept.push_back(entry(owned[i], "g"));
  SnapshotDiff diff = diff_snapshots(snapshot(selection(8, 8, {}, {}), all),
                                     snapshot(selection(8, 8, {}, {}, "1/2"), kept));
  EXPECT_EQ(names_of(diff, ChangeKind::kRemovedCase), std::vector<std::string>{owned[0]});
  EXPECT_EQ(names_of(diff, ChangeKind::kOutsideNewSelection), other);
}

}  // namespace
}  // namespace capmap

// The snapshot header's `selection`: which part of the registry the merged
// runs measured, combined over runs and shard stores.
#include <gtest/gtest.h>
#include <unistd.h>

#include "common/fnv_hash.h"
#include "merge/merge.h"
#include "store_builder.h"

namespace capmap {
namespace {

using testing::make_case;
using testing::make_run_info;
using testing::StoreBuilder;

const std::vector<std::string> kPaths{"eager", "onnx"};

class MergeSelection : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("capmap_merge_selection_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // A store of run k1 holding `asked` cases, with records for those shard
  // `shard`/`count` owns.
  std::filesystem::path store(const std::string& file, const std::vector<std::string>& asked,
                              int shard = 1, int count = 1) {
    auto path = dir_ / file;
    StoreBuilder builder(path);
    builder.add_run("k1", make_run_info(), "2026-01-01T00:00:00Z");
    builder.add_shard("k1", shard, count, kPaths);
    for (const auto& name : asked) {
      builder.add_case("k1", make_case(name, "x.y"));
      if (fnv1a64(name) % static_cast<std::uint64_t>(count) !=
          static_cast<std::uint64_t>(shard - 1)) {
        continue;
      }
      for (const auto& p : kPaths) builder.add_record("k1", name, p, {{"status", "ok"}});
    }
    return path;
  }

  nlohmann::json merged(std::vector<std::filesystem::path> stores, bool force = false) {
    MergeOptions o;
    o.stores = std::move(stores);
    o.out = dir_ / "snapshot.json";
    o.force = force;
    return merge_stores(o);
  }

  std::filesystem::path dir_;
};

TEST_F(MergeSelection, APartialRunSaysWhichPart) {
  auto path = store("results.db", {"x[1]"});
  StoreBuilder(path).add_selection("k1", {"x[1]"}, {}, "1/1", 8, 1);
  auto header = merged({path})["header"];
  EXPECT_EQ(header["complete"], true);  // every selected case has its records
  EXPECT_EQ(header["selection"], nlohmann::json::parse(R"({"registry_cases": 8, "cases": 1,
            "only": ["x[1]"], "tags": [], "shard": null})"));
}

TEST_F(MergeSelection, RunsIntoOneStoreAddUp) {
  auto path = store("results.db", {"x[1]", "x[2]"});
  {
    StoreBuilder builder(path);
    builder.add_selection("k1", {"x[1]"}, {}, "1/1", 8, 1);
    builder.add_selection("k1", {"x[2]"}, {}, "1/1", 8, 1);
  }
  auto selection = merged({path})["header"]["selection"];
  EXPECT_EQ(selection["cases"], 2);
  EXPECT_EQ(selection["only"], nlohmann::json({"x[1]", "x[2]"}));
}

TEST_F(MergeSelection, EveryShardMergedIsTheWholeSelection) {
  std::vector<std::string> asked{"a", "b", "c", "d", "e"};
  auto one = store("one.db", asked, 1, 2);
  auto two = store("two.db", asked, 2, 2);
  StoreBuilder(one).add_selection("k1", {}, {"quick"}, "1/2", 20, 5);
  StoreBuilder(two).add_selection("k1", {}, {"quick"}, "2/2", 20, 5);
  auto both = merged({one, two})["header"];
  EXPECT_EQ(both["complete"], true);
  EXPECT_EQ(both["selection"]["shard"], nullptr);
  EXPECT_EQ(both["selection"]["tags"], nlohmann::json({"quick"}));
  EXPECT_EQ(both["selection"]["cases"], 5);

  auto alone = merged({one}, /*force=*/true)["header"];
  EXPECT_EQ(alone["complete"], false);
  EXPECT_EQ(alone["selection"]["shard"], "1/2");
}

TEST_F(MergeSelection, AStoreFromBeforeTheRecordLeavesItUnknown) {
  auto old_store = store("old.db", {"a", "b"});
  auto header = merged({old_store})["header"];
  ASSERT_TRUE(header.contains("selection"));
  EXPECT_EQ(header["selection"], nullptr);

  // Merged with a store that does record it, the union is still unknown.
  std::vector<std::string> asked{"a", "b", "c", "d", "e"};
  auto one = store("one.db", asked, 1, 2);
  auto two = store("two.db", asked, 2, 2);
  StoreBuilder(one).add_selection("k1", {}, {}, "1/2", 5, 5);
  EXPECT_EQ(merged({one, two})["header"]["selection"], nullptr);
}

}  // namespace
}  // namespace capmap

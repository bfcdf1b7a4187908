// Which run a merge reads when one store holds runs of several environments.
#include "merge/run_choice.h"

#include <gtest/gtest.h>

#include "common/user_error.h"

namespace capmap {
namespace {

StoredRun run_of(const std::string& key, const std::string& torch, const std::string& onnxscript,
                 const std::string& created) {
  StoredRun run;
  run.run_key = key;
  run.created = created;
  run.info = {{"versions", {{"torch", torch}, {"onnxscript", onnxscript}}},
              {"library", {{"name", "kornia"}, {"version", "0.9.0"}}}};
  return run;
}

TEST(VersionFilter, ParsesNamesAndValuesAndRefusesTheRest) {
  auto filter = parse_version_filter("torch=2.9.1,onnxscript=0.5.7");
  ASSERT_EQ(filter.size(), 2u);
  EXPECT_EQ(filter[0], (std::pair<std::string, std::string>{"torch", "2.9.1"}));
  EXPECT_TRUE(parse_version_filter("").empty());
  for (const char* bad : {"torch", "=2.9", "torch=", "torch=2.9,onnx"}) {
    EXPECT_THROW(parse_version_filter(bad), UserError) << bad;
  }
}

TEST(VersionFilter, AValueMatchesItsOwnReleaseAndLongerOnes) {
  EXPECT_TRUE(version_matches("2.9.1", "2.9.1"));
  EXPECT_TRUE(version_matches("2.9", "2.9.1"));
  EXPECT_TRUE(version_matches("2.13.0", "2.13.0+cpu"));
  EXPECT_FALSE(version_matches("2.1", "2.13.0"));
  EXPECT_FALSE(version_matches("2.9.1", "2.9"));
  EXPECT_FALSE(version_matches("2.9", ""));
}

TEST(RunChoice, TheNewestPassingTheFilterAndHowManyThereWere) {
  std::vector<std::vector<StoredRun>> stores = {{run_of("a", "2.9.1", "0.5.7", "2026-01-01"),
                                                 run_of("b", "2.13.0+cpu", "0.7.2", "2026-02-01")},
                                                {run_of("c", "2.9.1", "0.7.2", "2026-03-01")}};
  auto newest = choose_run(stores, "", {}, "s.db");
  EXPECT_EQ(newest.run->run_key, "c");
  EXPECT_EQ(newest.candidates, 3u);
  auto old_torch = choose_run(stores, "", parse_version_filter("torch=2.9"), "s.db");
  EXPECT_EQ(old_torch.run->run_key, "c");
  EXPECT_EQ(old_torch.candidates, 2u);
  auto exact = choose_run(stores, "", parse_version_filter("torch=2.9.1,onnxscript=0.5.7"), "s.db");
  EXPECT_EQ(exact.run->run_key, "a");
  EXPECT_EQ(exact.candidates, 1u);
  EXPECT_EQ(choose_run(stores, "b", {}, "s.db").run->run_key, "b");
  EXPECT_EQ(choose_run(stores, "", parse_version_filter("library=0.9"), "s.db").candidates, 3u);
}

TEST(RunChoice, NothingMatchingNamesWhatTheStoresHold) {
  std::vector<std::vector<StoredRun>> stores = {{run_of("a", "2.9.1", "0.5.7", "2026-01-01")}};
  try {
    choose_run(stores, "", parse_version_filter("torch=2.14"), "s.db");
    FAIL() << "no run should match";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("a (torch 2.9.1, onnxscript 0.5.7, kornia 0.9.0)"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(choose_run({{}}, "", {}, "s.db"), UserError);
  EXPECT_THROW(choose_run(stores, "zzz", {}, "s.db"), UserError);
}

}  // namespace
}  // namespace capmap

// The read-only view merge reads a store through: what the writer stored, as
// plain structs, and one consistent state while a run goes on writing.
#include "store/store_reader.h"

#include <gtest/gtest.h>

#include <string>

#include "../common/temp_dir.h"
#include "../common/user_error_text.h"
#include "store/repro_table.h"
#include "store/result_store.h"

namespace capmap {
namespace {

using testing::error_of;
using testing::TempDir;

RunDescription run_of(const std::string& key, const std::vector<std::string>& cases) {
  RunDescription run;
  run.run_key = key;
  run.info = {{"library", {{"name", "lib"}}}, {"versions", {{"torch", "2.13.0"}}}};
  for (const auto& name : cases) run.cases.push_back({{"name", name}, {"group", "g"}});
  run.excludes = nlohmann::json::array({{{"name", "CONST"}, {"reason", "a constant"}}});
  run.shard = 2;
  run.shard_count = 3;
  run.paths = {"eager", "onnx"};
  run.only = {"g"};
  run.registry_cases = 9;
  return run;
}

TEST(StoreReader, SeesTheStoreAsItWasWhenItOpenedWhileARunGoesOnWriting) {
  TempDir dir;
  auto path = dir.path() / "s.db";
  auto writer = ResultStore::open_for_writing(path);  // WAL, as `capmap run` writes it
  writer.begin_run(run_of("k", {"a", "b"}));
  writer.put_record("k", "a", "eager", {{"status", "ok"}});

  StoreReader reader(path);
  // The run goes on: another record, then a new run key with its case and record.
  writer.put_record("k", "b", "eager", {{"status", "ok"}});
  writer.begin_run(run_of("k2", {"a"}));
  writer.put_record("k2", "a", "eager", {{"status", "fail"}});

  auto runs = reader.runs();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].run_key, "k");
  int records = 0;
  reader.for_each_record("k", [&](RecordRow&&) { ++records; });
  EXPECT_EQ(records, 1);
  EXPECT_TRUE(reader.cases("k2").empty());

  StoreReader fresh(path);
  EXPECT_EQ(fresh.runs().size(), 2u);
  int fresh_records = 0;
  fresh.for_each_record("k", [&](RecordRow&&) { ++fresh_records; });
  EXPECT_EQ(fresh_records, 2);
}

TEST(StoreReader, ReadsEveryTableAsPlainStructs) {
  TempDir dir;
  auto path = dir.path() / "s.db";
  {
    auto writer = ResultStore::open_for_writing(path);
    writer.begin_run(run_of("k", {"b", "a"}));
    writer.put_record("k", "a", "onnx", {{"status", "export-fail"}, {"seconds", 1.5}});
  }
  ReproResult check{"k", "a", "onnx", "2026-01-02T03:04:05Z", true, "export-fail (E): x", "s"};
  ReproTable::open(path).put(check);

  StoreReader reader(path);
  auto runs = reader.runs();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].info["versions"]["torch"], "2.13.0");
  auto cases = reader.cases("k");
  ASSERT_EQ(cases.size(), 2u);
  EXPECT_EQ(cases[0]["name"], "a");  // by name
  EXPECT_EQ(reader.excludes("k").at(0)["reason"], "a constant");
  auto shards = reader.shards("k");
  ASSERT_EQ(shards.size(), 1u);
  EXPECT_EQ(shards[0].shard, 2);
  EXPECT_EQ(shards[0].shard_count, 3);
  EXPECT_EQ(shards[0].paths, (std::vector<std::string>{"eager", "onnx"}));
  auto selections = reader.selections("k");
  ASSERT_TRUE(selections.has_value());
  ASSERT_EQ(selections->size(), 1u);
  EXPECT_EQ((*selections)[0].only, std::vector<std::string>{"g"});
  EXPECT_EQ((*selections)[0].shard, 2);
  EXPECT_EQ((*selections)[0].registry_cases, 9);
  std::vector<RecordRow> rows;
  reader.for_each_record("k", [&](RecordRow&& row) { rows.push_back(std::move(row)); });
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].record["status"], "export-fail");
  EXPECT_EQ(rows[0].record["seconds"], 1.5);
  auto checks = reader.repro_checks("k");
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_TRUE(checks.at({"a", "onnx"}).reproduced);
  EXPECT_EQ(checks.at({"a", "onnx"}).script, "s");
}

TEST(StoreReader, RefusesWhatIsNotAStoreInOneLine) {
  TempDir dir;
  EXPECT_EQ(error_of([&] { StoreReader reader(dir.path() / "absent.db"); }),
            (dir.path() / "absent.db").string() + ": no such store");
}

}  // namespace
}  // namespace capmap

#include "store/result_store.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <map>

#include "../common/temp_dir.h"
#include "../common/user_error_text.h"
#include "common/atomic_file.h"
#include "common/user_error.h"

namespace capmap {
namespace {

using testing::error_of;
using testing::TempDir;

RunDescription sample_run(const std::string& key) {
  RunDescription run;
  run.run_key = key;
  run.info = {{"library", {{"name", "lib"}}}, {"cores", 2}};
  run.cases =
      nlohmann::json::array({{{"name", "a"}, {"group", "g.x"}}, {{"name", "b"}, {"group", "g"}}});
  run.excludes = nlohmann::json::array({{{"name", "CONST"}, {"reason", "a constant"}}});
  run.shard = 2;
  run.shard_count = 3;
  run.paths = {"eager", "onnx"};
  return run;
}

TEST(ResultStore, CreatesTheContractSchemaInWalMode) {
  TempDir dir;
  auto path = dir.path() / "nested" / "results.db";
  {
    auto store = ResultStore::open_for_writing(path);
    store.begin_run(sample_run("k1"));
  }
  SqliteDatabase db(path, SQLITE_OPEN_READONLY);
  auto mode = db.prepare("PRAGMA journal_mode");
  ASSERT_TRUE(mode.step());
  EXPECT_EQ(mode.text(0), "wal");
  auto version = db.prepare("SELECT value FROM meta WHERE key='schema_version'");
  ASSERT_TRUE(version.step());
  EXPECT_EQ(version.text(0), "1");
  auto tables = db.prepare("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name");
  std::vector<std::string> names;
  while (tables.step()) names.push_back(tables.text(0));
  EXPECT_EQ(names, (std::vector<std::string>{"cases", "dispatches", "excludes", "meta", "records",
                                             "runs", "selections", "shards"}));
  auto shard = db.prepare("SELECT shard, shard_count, paths FROM shards WHERE run_key='k1'");
  ASSERT_TRUE(shard.step());
  EXPECT_EQ(shard.integer(0), 2);
  EXPECT_EQ(shard.integer(1), 3);
  EXPECT_EQ(shard.text(2), R"(["eager","onnx"])");
  auto cases = db.prepare("SELECT count(*) FROM cases WHERE run_key='k1'");
  ASSERT_TRUE(cases.step());
  EXPECT_EQ(cases.integer(0), 2);
}

TEST(ResultStore, RecordsEachRunsSelection) {
  TempDir dir;
  auto path = dir.path() / "results.db";
  {
    auto store = ResultStore::open_for_writing(path);
    auto run = sample_run("k1");
    run.only = {"g", "a", "g"};
    run.tags = {"quick"};
    run.registry_cases = 8;
    store.begin_run(run);
    store.begin_run(run);  // a resumed run replaces its own row
    run.only = {"b"};
    run.shard = 1;
    store.begin_run(run);
  }
  SqliteDatabase db(path, SQLITE_OPEN_READONLY);
  auto rows = db.prepare(
      "SELECT only, tags, shard, registry_cases, cases FROM selections WHERE run_key='k1' "
      "ORDER BY shard");
  ASSERT_TRUE(rows.step());
  EXPECT_EQ(rows.text(0), R"(["b"])");
  EXPECT_EQ(rows.text(2), "1/3");
  ASSERT_TRUE(rows.step());
  EXPECT_EQ(rows.text(0), R"(["a","g"])");
  EXPECT_EQ(rows.text(1), R"(["quick"])");
  EXPECT_EQ(rows.text(2), "2/3");
  EXPECT_EQ(rows.integer(3), 8);
  EXPECT_EQ(rows.integer(4), 2);  // the cases asked for, before the shard split
  EXPECT_FALSE(rows.step());
}

TEST(ResultStore, AStoreFromBeforeSelectionsGainsTheTable) {
  TempDir dir;
  auto path = dir.path() / "results.db";
  {
    auto store = ResultStore::open_for_writing(path);
    store.put_record("k1", "a", "eager", {{"status", "ok"}});
  }
  {
    SqliteDatabase db(path, SQLITE_OPEN_READWRITE);
    db.exec("DROP TABLE selections");
  }
  auto store = ResultStore::open_for_writing(path);
  store.begin_run(sample_run("k1"));
  EXPECT_EQ(store.records("k1").at({"a", "eager"}).status, "ok");
  SqliteDatabase db(path, SQLITE_OPEN_READONLY);
  auto rows = db.prepare("SELECT count(*) FROM selections");
  ASSERT_TRUE(rows.step());
  EXPECT_EQ(rows.integer(0), 1);
}

TEST(ResultStore, RecordsSurviveReopeningAndStayPerRunKey) {
  TempDir dir;
  auto path = dir.path() / "results.db";
  {
    auto store = ResultStore::open_for_writing(path);
    store.put_record("k1", "a", "eager", {{"status", "ok"}, {"seconds", 1.5}, {"outputs", {"T"}}});
    store.put_record("k2", "a", "eager", {{"status", "fail"}, {"seconds", 0.25}});
  }
  auto store = ResultStore::open_for_reading(path);
  auto k1 = store.records("k1");
  ASSERT_EQ(k1.size(), 1u);
  const auto& r = k1.at({"a", "eager"});
  EXPECT_EQ(r.status, "ok");
  EXPECT_DOUBLE_EQ(r.seconds, 1.5);
  EXPECT_EQ(r.record["outputs"][0], "T");
  EXPECT_EQ(store.records("k2").at({"a", "eager"}).status, "fail");
  EXPECT_TRUE(store.records("k3").empty());
  // Durations come from the newest record under any key.
  EXPECT_DOUBLE_EQ(store.known_durations().at({"a", "eager"}), 0.25);
}

TEST(ResultStore, CountsDispatchesAndTakesThemBack) {
  TempDir dir;
  auto store = ResultStore::open_for_writing(dir.path() / "results.db");
  store.mark_dispatched("k", "a", {"eager", "onnx"});
  store.mark_dispatched("k", "a", {"onnx"});
  auto attempts = store.dispatch_attempts("k");
  EXPECT_EQ(attempts.at({"a", "eager"}), 1);
  EXPECT_EQ(attempts.at({"a", "onnx"}), 2);
  store.unmark_dispatched("k", "a", {"onnx"});
  EXPECT_EQ(store.dispatch_attempts("k").at({"a", "onnx"}), 1);
  store.reset_dispatches("k", "a", "onnx");
  EXPECT_FALSE(store.dispatch_attempts("k").count({"a", "onnx"}));
}

TEST(ResultStore, KeepsInvalidUtf8InARecordAsReplacementCharacters) {
  TempDir dir;
  auto store = ResultStore::open_for_writing(dir.path() / "results.db");
  store.put_record("k", "a", "eager",
                   {{"status", "crashed"}, {"log_tail", std::string("bad \xff byte")}});
  auto tail = store.records("k").at({"a", "eager"}).record["log_tail"].get<std::string>();
  EXPECT_EQ(tail, "bad \xEF\xBF\xBD byte");
}

TEST(ResultStore, CorruptFileIsRefusedAndLeftUntouched) {
  TempDir dir;
  auto path = dir.path() / "results.db";
  std::string garbage(8192, 'x');
  write_file_atomically(path, garbage);
  std::string message = error_of([&] { ResultStore::check_existing(path); });
  EXPECT_NE(message.find(path.string()), std::string::npos);
  EXPECT_NE(message.find("not a readable results store"), std::string::npos);
  message = error_of([&] { ResultStore::open_for_writing(path); });
  EXPECT_NE(message.find(path.string()), std::string::npos);
  EXPECT_EQ(read_file(path), garbage);
  EXPECT_FALSE(std::filesystem::exists(path.string() + "-wal"));
}

TEST(ResultStore, ForeignSqliteFileIsRefused) {
  TempDir dir;
  auto path = dir.path() / "other.db";
  {
    SqliteDatabase db(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
    db.exec("CREATE TABLE t(x)");
  }
  auto before = read_file(path);
  std::string message = error_of([&] { ResultStore::open_for_writing(path); });
  EXPECT_NE(message.find("not a capmap results store"), std::string::npos);
  EXPECT_EQ(read_file(path), before);
}

TEST(ResultStore, AFolderIsNotAStore) {
  TempDir dir;
  auto message = error_of([&] { ResultStore::open_for_writing(dir.path()); });
  EXPECT_NE(message.find(dir.path().string()), std::string::npos);
  EXPECT_NE(message.find("folder"), std::string::npos);
}

TEST(ResultStore, AbsentFilePassesTheCheckAndIsNotCreatedByIt) {
  TempDir dir;
  auto path = dir.path() / "results.db";
  ResultStore::check_existing(path);
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(ResultStore, ALaterRunOfTheSameKeyAddsTheDescriptionsOfItsNewPaths) {
  TempDir dir;
  auto path = dir.path() / "results.db";
  auto store = ResultStore::open_for_writing(path);
  RunDescription first = sample_run("k1");
  first.info["path_info"] = {{{"name", "eager"}, {"label", "eager"}},
                             {{"name", "onnx"}, {"label", "old ONNX"}}};
  store.begin_run(first);
  RunDescription second = sample_run("k1");
  second.info["path_info"] = {{{"name", "onnx"}, {"label", "ONNX"}},
                              {{"name", "toy"}, {"label", "Toy"}}};
  store.begin_run(second);
  auto runs = store.runs();
  ASSERT_EQ(runs.size(), 1u);
  std::map<std::string, std::string> labels;
  for (const auto& p : runs[0].second["path_info"]) labels[p["name"]] = p["label"];
  EXPECT_EQ(labels, (std::map<std::string, std::string>{
                        {"eager", "eager"}, {"onnx", "ONNX"}, {"toy", "Toy"}}));
  EXPECT_EQ(runs[0].second["cores"], 2);  // the rest of the first run's info stays
}

}  // namespace
}  // namespace capmap

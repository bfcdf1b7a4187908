// A merge while a run writes reads one consistent state of the store.
#include <gtest/gtest.h>

#include <string>

#include "../common/temp_dir.h"
#include "merge/store_reader.h"
#include "store_builder.h"

namespace capmap {
namespace {

using testing::make_case;
using testing::make_run_info;
using testing::StoreBuilder;
using testing::TempDir;

TEST(StoreReader, SeesTheStoreAsItWasWhenItOpenedWhileARunGoesOnWriting) {
  TempDir dir;
  auto path = dir.path() / "s.db";
  StoreBuilder writer(path);
  writer.exec("PRAGMA journal_mode=WAL");  // as `capmap run` writes it
  writer.add_run("k", make_run_info(), "2026-01-01T00:00:00Z");
  writer.add_case("k", make_case("a", "g"));
  writer.add_case("k", make_case("b", "g"));
  writer.add_record("k", "a", "eager", {{"status", "ok"}});

  StoreReader reader(path);
  // The run goes on: another record, then a new run key with its case and record.
  writer.add_record("k", "b", "eager", {{"status", "ok"}});
  writer.add_run("k2", make_run_info("2.14.0"), "2026-01-02T00:00:00Z");
  writer.add_case("k2", make_case("a", "g"));
  writer.add_record("k2", "a", "eager", {{"status", "fail"}});

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

}  // namespace
}  // namespace capmap

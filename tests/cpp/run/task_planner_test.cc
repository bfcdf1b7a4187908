#include "run/task_planner.h"

#include <gtest/gtest.h>

#include "../common/temp_dir.h"

namespace capmap {
namespace {

using testing::TempDir;

const std::vector<std::string> kPaths = {"eager", "onnx", "export"};

std::vector<nlohmann::json> cases() {
  return {{{"name", "a"}, {"skip", nullptr}},
          {{"name", "b"}, {"skip", nullptr}},
          {{"name", "c"}, {"skip", "needs a GPU"}}};
}

nlohmann::json ok() { return {{"status", "ok"}, {"seconds", 1.0}}; }

TEST(TaskPlanner, FreshStorePlansEveryPathAndRecordsSkips) {
  TempDir dir;
  auto store = ResultStore::open_for_writing(dir.path() / "results.db");
  auto plan = plan_tasks(store, "k", cases(), kPaths, false);
  ASSERT_EQ(plan.tasks.size(), 2u);
  EXPECT_EQ(plan.tasks[0].case_name, "a");
  EXPECT_EQ(plan.tasks[0].paths, kPaths);
  EXPECT_EQ(plan.skipped_written, 3);
  auto records = store.records("k");
  EXPECT_EQ(records.at({"c", "onnx"}).status, "skipped");
  EXPECT_EQ(records.at({"c", "onnx"}).record["message"], "needs a GPU");
  // Skips are never dispatched.
  EXPECT_TRUE(store.dispatch_attempts("k").empty());
}

TEST(TaskPlanner, ResumeSkipsRecordedRerunsDispatchedAndCrashesTwiceDispatched) {
  TempDir dir;
  auto path = dir.path() / "results.db";
  {
    // A run that was killed: a's eager and onnx stored, a's export dispatched
    // once; b dispatched twice (killed twice) with only its eager stored.
    auto store = ResultStore::open_for_writing(path);
    store.mark_dispatched("k", "a", kPaths);
    store.put_record("k", "a", "eager", ok());
    store.put_record("k", "a", "onnx", ok());
    store.mark_dispatched("k", "b", kPaths);
    store.put_record("k", "b", "eager", ok());
    store.mark_dispatched("k", "b", {"onnx", "export"});
    // Records under another run key are never reused.
    store.put_record("other", "b", "onnx", ok());
  }
  auto store = ResultStore::open_for_writing(path);
  auto plan = plan_tasks(store, "k", cases(), kPaths, false);
  ASSERT_EQ(plan.tasks.size(), 1u);
  EXPECT_EQ(plan.tasks[0].case_name, "a");
  EXPECT_EQ(plan.tasks[0].paths, (std::vector<std::string>{"export"}));
  EXPECT_EQ(plan.crashed_written, 2);
  EXPECT_EQ(plan.already_recorded, 3);
  auto records = store.records("k");
  EXPECT_EQ(records.at({"b", "onnx"}).status, "crashed");
  EXPECT_NE(records.at({"b", "onnx"}).record["message"].get<std::string>().find("2 times"),
            std::string::npos);
  EXPECT_EQ(records.at({"b", "export"}).status, "crashed");

  // Planned again: every (case, path) now has exactly one record, nothing to do.
  auto again = plan_tasks(store, "k", cases(), kPaths, false);
  EXPECT_EQ(again.tasks.size(), 1u);  // a's export still has no record
  EXPECT_EQ(store.records("k").size(), 8u);
}

TEST(TaskPlanner, RetryCrashedRerunsCrashedPathsOnly) {
  TempDir dir;
  auto store = ResultStore::open_for_writing(dir.path() / "results.db");
  for (const auto& p : kPaths) store.put_record("k", "a", p, ok());
  store.put_record("k", "b", "eager", ok());
  store.put_record("k", "b", "onnx", {{"status", "crashed"}, {"signal", "SIGSEGV"}});
  store.put_record("k", "b", "export", {{"status", "timeout"}});
  store.mark_dispatched("k", "b", {"onnx"});
  store.mark_dispatched("k", "b", {"onnx"});

  EXPECT_TRUE(plan_tasks(store, "k", cases(), kPaths, false).tasks.empty());
  auto plan = plan_tasks(store, "k", cases(), kPaths, true);
  ASSERT_EQ(plan.tasks.size(), 1u);
  EXPECT_EQ(plan.tasks[0].case_name, "b");
  EXPECT_EQ(plan.tasks[0].paths, (std::vector<std::string>{"onnx"}));
  // Its dispatch count starts over, so it is not declared crashed at once.
  EXPECT_FALSE(store.dispatch_attempts("k").count({"b", "onnx"}));
}

}  // namespace
}  // namespace capmap

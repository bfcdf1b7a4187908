#include "run/scheduler.h"

#include <gtest/gtest.h>

namespace capmap {
namespace {

std::vector<std::string> drain(Scheduler& queue) {
  std::vector<std::string> order;
  while (auto task = queue.pop()) order.push_back(task->case_name);
  return order;
}

TEST(Scheduler, UnknownFirstThenLongestExpectedFirst) {
  Scheduler queue;
  queue.push({"short", {"eager"}}, 0.5);
  queue.push({"new1", {"eager"}}, std::nullopt);
  queue.push({"long", {"eager"}}, 30.0);
  queue.push({"medium", {"eager"}}, 4.0);
  queue.push({"new2", {"eager"}}, std::nullopt);
  EXPECT_EQ(queue.size(), 5u);
  EXPECT_EQ(drain(queue), (std::vector<std::string>{"new1", "new2", "long", "medium", "short"}));
  EXPECT_TRUE(queue.empty());
  EXPECT_FALSE(queue.pop().has_value());
}

TEST(Scheduler, EqualEstimatesKeepQueueOrder) {
  Scheduler queue;
  for (auto name : {"c", "a", "b"}) queue.push({name, {"onnx"}}, 2.0);
  EXPECT_EQ(drain(queue), (std::vector<std::string>{"c", "a", "b"}));
}

TEST(Scheduler, PushAfterPopStillOrders) {
  Scheduler queue;
  queue.push({"a", {}}, 1.0);
  queue.push({"b", {}}, 2.0);
  EXPECT_EQ(queue.pop()->case_name, "b");
  queue.push({"c", {}}, 5.0);
  queue.push({"d", {}}, std::nullopt);
  EXPECT_EQ(drain(queue), (std::vector<std::string>{"d", "c", "a"}));
}

TEST(ExpectedSeconds, SumsKnownPathsAndIsUnknownWhenAnyPathIsNew) {
  DurationTable durations = {{{"x", "eager"}, 1.0}, {{"x", "onnx"}, 2.5}, {{"y", "eager"}, 3.0}};
  EXPECT_DOUBLE_EQ(*expected_seconds({"x", {"eager", "onnx"}}, durations), 3.5);
  EXPECT_FALSE(expected_seconds({"y", {"eager", "onnx"}}, durations).has_value());
  EXPECT_FALSE(expected_seconds({"z", {"eager"}}, durations).has_value());
}

}  // namespace
}  // namespace capmap

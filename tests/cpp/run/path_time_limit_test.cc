#include "run/path_time_limit.h"

#include <gtest/gtest.h>

namespace capmap {
namespace {

TEST(PathTimeLimit, AnUnknownPathGetsTheRunsLimit) {
  EXPECT_DOUBLE_EQ(path_time_limit(420, std::nullopt), 420);
}

TEST(PathTimeLimit, AKnownPathGetsTenTimesWhatItTookAtMostThreeLimits) {
  EXPECT_DOUBLE_EQ(path_time_limit(420, 86), 860);
  EXPECT_DOUBLE_EQ(path_time_limit(420, 200), 1260);
  // Never less than the run's limit.
  EXPECT_DOUBLE_EQ(path_time_limit(420, 5), 420);
  EXPECT_DOUBLE_EQ(path_time_limit(420, 0), 420);
}

TEST(PathTimeLimit, ARecordThatTimedOutGivesNoRoom) {
  EXPECT_DOUBLE_EQ(path_time_limit(420, 420.3), 420);
  EXPECT_DOUBLE_EQ(path_time_limit(100, 419), 100);  // a record from a run with a longer limit
  EXPECT_DOUBLE_EQ(path_time_limit(420, -1), 420);
}

}  // namespace
}  // namespace capmap

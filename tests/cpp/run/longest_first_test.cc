#include "run/longest_first.h"

#include <gtest/gtest.h>

namespace capmap {
namespace {

TEST(LongestFirst, EachItemGoesToTheLeastLoadedBinLongestFirst) {
  // 8 → bin 0, 7 → bin 1, 6 → bin 1 (7 < 8), 2 → bin 0 (8 < 13), 1 → bin 0 (10 < 13).
  auto packing = pack_longest_first({6, 8, 7, 2, 1}, 2);
  EXPECT_EQ(packing.bin_of, (std::vector<int>{1, 0, 1, 0, 0}));
  EXPECT_DOUBLE_EQ(packing.load[0], 11);
  EXPECT_DOUBLE_EQ(packing.load[1], 13);
  EXPECT_DOUBLE_EQ(packing.wall(), 13);
}

TEST(LongestFirst, OneBinTakesEverything) {
  auto packing = pack_longest_first({1, 2, 3}, 1);
  EXPECT_DOUBLE_EQ(packing.wall(), 6);
  EXPECT_DOUBLE_EQ(pack_longest_first({1, 2, 3}, 0).wall(), 6);
}

TEST(LongestFirst, MoreBinsThanItemsLeavesTheLongestAsTheWall) {
  auto packing = pack_longest_first({5, 1}, 4);
  EXPECT_DOUBLE_EQ(packing.wall(), 5);
  EXPECT_EQ(packing.bin_of, (std::vector<int>{0, 1}));
}

TEST(LongestFirst, EqualItemsKeepTheirOrderAndFillTheLowestBinFirst) {
  auto packing = pack_longest_first({1, 1, 1, 1}, 2);
  EXPECT_EQ(packing.bin_of, (std::vector<int>{0, 1, 0, 1}));
  EXPECT_DOUBLE_EQ(pack_longest_first({}, 3).wall(), 0);
}

}  // namespace
}  // namespace capmap

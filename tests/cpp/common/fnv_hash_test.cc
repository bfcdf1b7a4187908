#include "common/fnv_hash.h"

#include <gtest/gtest.h>

namespace capmap {
namespace {

// Reference values of FNV-1a 64 from the algorithm's published test vectors.
TEST(FnvHash, MatchesPublishedVectors) {
  EXPECT_EQ(fnv1a64(""), 0xcbf29ce484222325ULL);
  EXPECT_EQ(fnv1a64("a"), 0xaf63dc4c8601ec8cULL);
  EXPECT_EQ(fnv1a64("foobar"), 0x85944171f73967e8ULL);
}

TEST(FnvHash, HexIsSixteenLowercaseDigits) {
  EXPECT_EQ(fnv1a64_hex("a"), "af63dc4c8601ec8c");
  EXPECT_EQ(fnv1a64_hex("").size(), 16u);
}

}  // namespace
}  // namespace capmap

#include "selection/shard.h"

#include <gtest/gtest.h>

#include <map>

#include "common/fnv_hash.h"
#include "common/user_error.h"

namespace capmap {
namespace {

std::vector<std::string> case_names() {
  std::vector<std::string> names;
  for (int i = 0; i < 500; ++i)
    names.push_back("op" + std::to_string(i) + "[v" + std::to_string(i % 7) + "]");
  return names;
}

TEST(Shard, EveryCaseBelongsToExactlyOneShard) {
  for (int count : {1, 2, 3, 7, 16}) {
    std::map<int, int> per_shard;
    for (const auto& name : case_names()) {
      int owners = 0;
      for (int index = 1; index <= count; ++index) {
        if (shard_owns({index, count}, name)) {
          ++owners;
          ++per_shard[index];
        }
      }
      EXPECT_EQ(owners, 1) << name << " in " << count << " shards";
    }
    // With 500 names, no shard is left empty.
    EXPECT_EQ(static_cast<int>(per_shard.size()), count);
  }
}

TEST(Shard, OwnerFollowsTheContract) {
  for (const auto& name : case_names()) {
    int expected = static_cast<int>(fnv1a64(name) % 5) + 1;
    EXPECT_TRUE(shard_owns({expected, 5}, name));
  }
}

TEST(Shard, ParsesValidText) {
  auto shard = parse_shard("2/4");
  EXPECT_EQ(shard.index, 2);
  EXPECT_EQ(shard.count, 4);
  EXPECT_EQ(parse_shard("1/1").count, 1);
}

TEST(Shard, RejectsBadTextWithTheText) {
  for (auto text : {"0/4", "5/4", "2", "a/b", "2/0", "-1/3", "1/", "/3", "2/4x", ""}) {
    try {
      parse_shard(text);
      ADD_FAILURE() << "accepted " << text;
    } catch (const UserError& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("'") + text + "'"), std::string::npos)
          << e.what();
    }
  }
}

}  // namespace
}  // namespace capmap

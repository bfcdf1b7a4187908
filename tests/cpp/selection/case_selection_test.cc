#include "selection/case_selection.h"

#include <gtest/gtest.h>

#include "common/user_error.h"

namespace capmap {
namespace {

nlohmann::json inventory() {
  return nlohmann::json::parse(R"([
    {"name":"rgb_to_gray","group":"color","tags":["quick"]},
    {"name":"resize[bilinear]","group":"geometry.transform","tags":[]},
    {"name":"resize[nearest]","group":"geometry.transform","tags":["quick"]},
    {"name":"find_fundamental","group":"geometry.epipolar","tags":["slow"]},
    {"name":"geometry_helper","group":"utils","tags":[]}
  ])");
}

std::vector<std::string> names(const std::vector<nlohmann::json>& cases) {
  std::vector<std::string> out;
  for (const auto& c : cases) out.push_back(c["name"]);
  return out;
}

TEST(CaseSelection, OnlyMatchesNamePrefixAndGroup) {
  CaseFilter filter;
  filter.only = {"resize"};
  EXPECT_EQ(names(select_cases(inventory(), filter)),
            (std::vector<std::string>{"resize[bilinear]", "resize[nearest]"}));
  filter.only = {"geometry"};  // group and everything below it, and the name prefix
  EXPECT_EQ(names(select_cases(inventory(), filter)),
            (std::vector<std::string>{"resize[bilinear]", "resize[nearest]", "find_fundamental",
                                      "geometry_helper"}));
  filter.only = {"geometry.epipolar", "rgb_to_gray"};
  EXPECT_EQ(names(select_cases(inventory(), filter)),
            (std::vector<std::string>{"rgb_to_gray", "find_fundamental"}));
}

TEST(CaseSelection, AnEqualsSignMatchesOneNameExactly) {
  CaseFilter filter;
  filter.only = {"=resize[nearest]", "=geometry"};  // never a prefix, never a group
  EXPECT_THROW(select_cases(inventory(), filter), UserError);
  filter.only = {"=resize[nearest]", "=rgb_to_gray"};
  EXPECT_EQ(names(select_cases(inventory(), filter)),
            (std::vector<std::string>{"rgb_to_gray", "resize[nearest]"}));
  EXPECT_FALSE(name_matches_pattern("resize[nearest]", "=resize"));
  EXPECT_TRUE(name_matches_pattern("resize[nearest]", "resize"));
}

TEST(CaseSelection, TagsSelectAndEmptyFilterTakesAll) {
  CaseFilter filter;
  EXPECT_EQ(select_cases(inventory(), filter).size(), 5u);
  filter.tags = {"quick"};
  EXPECT_EQ(names(select_cases(inventory(), filter)),
            (std::vector<std::string>{"rgb_to_gray", "resize[nearest]"}));
}

TEST(CaseSelection, PatternOrTagMatchingNothingIsAnError) {
  CaseFilter filter;
  filter.only = {"resize", "no_such_op"};
  try {
    select_cases(inventory(), filter);
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("'no_such_op'"), std::string::npos);
  }
  filter.only = {};
  filter.tags = {"nightly"};
  EXPECT_THROW(select_cases(inventory(), filter), UserError);
}

TEST(CaseSelection, ShardsPartitionTheSelection) {
  CaseFilter filter;
  filter.only = {"geometry"};
  size_t total = 0;
  for (int i = 1; i <= 3; ++i) {
    filter.shard = {i, 3};
    total += select_cases(inventory(), filter).size();
  }
  EXPECT_EQ(total, 4u);
}

}  // namespace
}  // namespace capmap

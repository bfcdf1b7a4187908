#include "merge/path_causes.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "merge/cause_rules.h"

namespace capmap {
namespace {

// A compile cell that captured with a break no rule explains: the page calls it
// a break, never a failure; a failure no rule explains stays a failure.
TEST(PathCauses, AnUnexplainedBreakIsABreakNotAFailure) {
  nlohmann::json cases = nlohmann::json::array();
  cases.push_back(
      {{"name", "op"},
       {"paths",
        {{"compile",
          {{"status", "ok-breaks"},
           {"break_reasons",
            {{{"reason", "a reason no rule knows"}, {"gb_id", "GB9999"}},
             {{"reason", "another reason no rule knows"}}}}}},
         {"export", {{"status", "fail"}, {"error_type", "TypeError"}, {"message", "odd"}}}}}});
  classify_paths(cases, CauseRules::load({}));
  const auto& compile = cases[0]["paths"]["compile"];
  EXPECT_EQ(compile["page_status"], "ok-breaks");
  EXPECT_EQ(compile["cause"], "Unclassified graph break (GB9999)");
  EXPECT_EQ(compile["category"], "unclassified");
  EXPECT_EQ(compile["break_reasons"][1]["cause"], "Unclassified graph break");
  EXPECT_EQ(cases[0]["paths"]["export"]["cause"], "Unclassified failure (TypeError)");
}

}  // namespace
}  // namespace capmap

// The facts line of every rendering says which part of the registry was measured.
#include <gtest/gtest.h>

#include "render/html_page.h"
#include "render/markdown_summary.h"
#include "render/page_data.h"
#include "render/page_text.h"
#include "render/rst_page.h"
#include "test_snapshot.h"

namespace capmap {
namespace {

nlohmann::json with_selection(nlohmann::json selection) {
  nlohmann::json snapshot = testing::small_snapshot();
  snapshot["header"]["selection"] = std::move(selection);
  return snapshot;
}

nlohmann::json partial() {
  return {{"registry_cases", 1371},
          {"cases", 41},
          {"only", nlohmann::json::array()},
          {"tags", {"quick"}},
          {"shard", nullptr}};
}

std::string fact(const PageModel& model, const std::string& label) {
  for (const auto& [name, value] : header_facts(model.header)) {
    if (name == label) return value;
  }
  return "(none)";
}

TEST(SelectionFacts, APartialRunSaysSoOnEveryPage) {
  PageModel m = build_page_model(with_selection(partial()), {});
  EXPECT_EQ(fact(m, "Selection"), "41 of 1,371 registry cases (tag quick)");
  EXPECT_NE(render_html_page(m).find("<div><dt>Selection</dt><dd class=\"cm-warn\">41 of 1,371 "
                                     "registry cases (tag quick)</dd></div>"),
            std::string::npos);
  EXPECT_NE(
      render_markdown_summary(m, 5).find(" · Selection 41 of 1,371 registry cases (tag quick)"),
      std::string::npos);
  EXPECT_NE(
      render_rst_page(m).text.find(":Selection: \\41 of 1\\,371 registry cases \\(tag quick\\)\n"),
      std::string::npos);
  EXPECT_EQ(page_data(m)["selection"], "41 of 1,371 registry cases (tag quick)");
}

TEST(SelectionFacts, TheWholeRegistryIsAPlainFact) {
  nlohmann::json whole = {{"registry_cases", 3},
                          {"cases", 3},
                          {"only", nlohmann::json::array()},
                          {"tags", nlohmann::json::array()},
                          {"shard", nullptr}};
  PageModel m = build_page_model(with_selection(whole), {});
  EXPECT_EQ(fact(m, "Selection"), "all 3 registry cases");
  EXPECT_NE(render_html_page(m).find("<div><dt>Selection</dt><dd>all 3 registry cases</dd></div>"),
            std::string::npos);
  EXPECT_FALSE(page_data(m).contains("selection"));
}

TEST(SelectionFacts, OlderSnapshotsRenderWithoutIt) {
  for (const nlohmann::json& snapshot : {testing::small_snapshot(), with_selection(nullptr)}) {
    PageModel m = build_page_model(snapshot, {});
    EXPECT_EQ(fact(m, "Selection"), "(none)");
    EXPECT_EQ(render_html_page(m).find("<dt>Selection</dt>"), std::string::npos);
    EXPECT_FALSE(page_data(m).contains("selection"));
  }
}

}  // namespace
}  // namespace capmap

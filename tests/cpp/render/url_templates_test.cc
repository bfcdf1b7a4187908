#include "render/url_templates.h"

#include <gtest/gtest.h>

namespace capmap {
namespace {

TEST(UrlTemplates, ExpandsEveryPlaceholder) {
  EXPECT_EQ(
      expand_source_url("https://x/{revision}/{path}#L{line}?r={revision}", "r1", "a/b.py", "7"),
      "https://x/r1/a/b.py#L7?r=r1");
  EXPECT_EQ(expand_docs_url("https://d/{ref}.html", "kornia.x"), "https://d/kornia.x.html");
}

TEST(UrlTemplates, KeepsUnknownBracesAndEmptyMeansNoLink) {
  EXPECT_EQ(expand_docs_url("https://d/{other}/{ref", "r"), "https://d/{other}/{ref");
  EXPECT_EQ(expand_docs_url("", "kornia.x"), "");
  EXPECT_EQ(expand_docs_url("https://d/{ref}", ""), "");
  EXPECT_EQ(expand_source_url("", "r", "p", "1"), "");
}

}  // namespace
}  // namespace capmap

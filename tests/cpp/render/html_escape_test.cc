#include "render/html_escape.h"

#include <gtest/gtest.h>

namespace capmap {
namespace {

TEST(HtmlEscape, EscapesMarkupAndQuotes) {
  EXPECT_EQ(escape_html("<a href=\"x\">'&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
  EXPECT_EQ(escape_html("plain"), "plain");
}

TEST(HtmlEscape, ScriptJsonCannotCloseTheElementAndRoundTrips) {
  nlohmann::json value = {{"name", "</script><script>alert(1)</script>"},
                          {"note", "a\u2028b\u2029c & <!--"}};
  std::string text = json_for_script(value);
  EXPECT_EQ(text.find('<'), std::string::npos);
  EXPECT_EQ(text.find('>'), std::string::npos);
  EXPECT_EQ(text.find('&'), std::string::npos);
  EXPECT_EQ(text.find("\xE2\x80\xA8"), std::string::npos);
  EXPECT_EQ(text.find("\xE2\x80\xA9"), std::string::npos);
  EXPECT_NE(text.find("\\u2028"), std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(text), value);
}

TEST(HtmlEscape, InvalidUtf8IsReplacedNotFatal) {
  nlohmann::json value = std::string("bad \xFF byte");
  std::string text = json_for_script(value);
  EXPECT_NO_THROW(nlohmann::json::parse(text));
}

}  // namespace
}  // namespace capmap

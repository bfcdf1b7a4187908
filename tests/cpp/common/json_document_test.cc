#include "common/json_document.h"

#include <gtest/gtest.h>

#include <string>

#include "common/user_error.h"

namespace capmap {
namespace {

std::string refusal(const std::string& text) {
  try {
    parse_json_document(text, "in.json");
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

TEST(JsonDocument, ANumberBeyondTheRangeOfADoubleIsBadInputNamingTheFile) {
  std::string message = refusal(R"({"schema_version": 1e309})");
  EXPECT_EQ(message.rfind("in.json: not valid JSON: ", 0), 0u) << message;
  EXPECT_NE(message.find("1e309"), std::string::npos) << message;
  EXPECT_EQ(message.find("json.exception"), std::string::npos) << message;
  EXPECT_NE(refusal("[-1e400]"), "");
}

TEST(JsonDocument, BadSyntaxIsBadInputNamingTheFile) {
  std::string message = refusal("{\"a\": ");
  EXPECT_EQ(message.rfind("in.json: not valid JSON: ", 0), 0u) << message;
}

TEST(JsonDocument, AValidDocumentParses) {
  EXPECT_EQ(parse_json_document(R"({"a": [1, 1e308]})", "in.json")["a"][0], 1);
}

}  // namespace
}  // namespace capmap

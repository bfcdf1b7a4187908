#include "common/json_document.h"

#include <fmt/format.h>

#include "common/user_error.h"

namespace capmap {

namespace {

// nlohmann's messages start with "[json.exception.parse_error.101] "; the rest
// (the position and what was wrong) is what a user needs.
std::string without_prefix(const std::string& what) {
  auto start = what.find("] ");
  return start == std::string::npos ? what : what.substr(start + 2);
}

}  // namespace

nlohmann::json parse_json_document(std::string_view text, const std::string& name) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::out_of_range& e) {
    // The parser reports a number it cannot hold (1e309) as out_of_range.406.
    throw UserError(fmt::format("{}: not valid JSON: {} (beyond the range of a double)", name,
                                without_prefix(e.what())));
  } catch (const nlohmann::json::exception& e) {
    throw UserError(fmt::format("{}: not valid JSON: {}", name, without_prefix(e.what())));
  }
}

}  // namespace capmap

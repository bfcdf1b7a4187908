#pragma once
// Escaping for text that comes from a snapshot and lands in HTML.
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace capmap {

// Safe in element content and in double- or single-quoted attribute values.
std::string escape_html(std::string_view text);

// JSON that can sit inside <script type="application/json">: '<', '>', '&'
// and U+2028/U+2029 become \u escapes, so no string can close the element.
// Invalid UTF-8 is replaced rather than rejected.
std::string json_for_script(const nlohmann::json& value);

}  // namespace capmap

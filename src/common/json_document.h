#pragma once
// Parses a JSON document read from outside (a snapshot, a data file, a baseline)
// so that every way it can be malformed — bad syntax, a number beyond the range
// of a double such as 1e309 — becomes one UserError naming the file.
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace capmap {

// Throws UserError ("NAME: not valid JSON: problem") when TEXT is not one JSON value.
nlohmann::json parse_json_document(std::string_view text, const std::string& name);

}  // namespace capmap

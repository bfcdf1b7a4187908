#pragma once
// `capmap render --check`: whether a committed page is what its snapshot renders
// today, and where the two first part when it is not.
#include <optional>
#include <string>
#include <string_view>

namespace capmap {

// Empty when equal; otherwise one line for a reader: the first line that
// differs, both versions shortened, or which side has lines the other lacks.
std::optional<std::string> first_difference(std::string_view committed, std::string_view rendered);

}  // namespace capmap

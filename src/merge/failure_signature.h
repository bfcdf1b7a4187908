#pragma once
// Groups failures no rule explains: the first line of the message with the
// parts that vary between cases (numbers, quoted names, paths, addresses)
// blanked, so one new rule can be written per group.
#include <string>
#include <string_view>

namespace capmap {

std::string failure_signature(std::string_view message);

}  // namespace capmap

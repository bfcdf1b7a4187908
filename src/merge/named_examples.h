#pragma once
// A refusal names a few examples of what is wrong, not all of them: one line
// stays readable when a thousand records are missing.
#include <cstddef>
#include <string>
#include <vector>

namespace capmap {

inline constexpr std::size_t kNamedExamples = 5;

// "a, b, c, d, e and 7 more": the first kNamedExamples of `items`, and how many
// of `total` were left unnamed.
std::string join_examples(const std::vector<std::string>& items, std::size_t total);

}  // namespace capmap

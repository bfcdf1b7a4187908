#include "merge/named_examples.h"

#include <fmt/format.h>

namespace capmap {

std::string join_examples(const std::vector<std::string>& items, std::size_t total) {
  std::string out;
  for (std::size_t i = 0; i < items.size() && i < kNamedExamples; ++i) {
    if (i) out += ", ";
    out += items[i];
  }
  if (total > kNamedExamples) out += fmt::format(" and {} more", total - kNamedExamples);
  return out;
}

}  // namespace capmap

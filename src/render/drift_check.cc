#include "render/drift_check.h"

#include <fmt/format.h>

#include <cstddef>

namespace capmap {
namespace {

constexpr std::size_t kShown = 80;

std::string_view line_at(std::string_view text, std::size_t start) {
  std::size_t end = text.find('\n', start);
  return text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
}

std::string shortened(std::string_view line) {
  if (line.size() <= kShown) return std::string(line);
  return std::string(line.substr(0, kShown)) + "…";
}

}  // namespace

std::optional<std::string> first_difference(std::string_view committed, std::string_view rendered) {
  if (committed == rendered) return std::nullopt;
  std::size_t line = 1, start = 0;
  // Walk whole lines while both sides agree.
  while (true) {
    std::size_t a = committed.find('\n', start), b = rendered.find('\n', start);
    if (a != b || a == std::string_view::npos) break;
    if (committed.substr(start, a - start) != rendered.substr(start, b - start)) break;
    start = a + 1;
    ++line;
  }
  bool committed_ends = start >= committed.size(), rendered_ends = start >= rendered.size();
  if (committed_ends != rendered_ends) {
    return committed_ends
               ? fmt::format("it ends at line {}, where the snapshot renders more: \"{}\"", line,
                             shortened(line_at(rendered, start)))
               : fmt::format("it has lines the snapshot does not render, from line {}: \"{}\"",
                             line, shortened(line_at(committed, start)));
  }
  return fmt::format("line {} differs: committed \"{}\", rendered \"{}\"", line,
                     shortened(line_at(committed, start)), shortened(line_at(rendered, start)));
}

}  // namespace capmap

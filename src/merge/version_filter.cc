#include "merge/version_filter.h"

#include <fmt/format.h>

#include "common/user_error.h"

namespace capmap {

VersionFilter parse_version_filter(const std::string& text) {
  VersionFilter filter;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    std::string part = text.substr(start, comma - start);
    start = comma + 1;
    if (part.empty()) continue;
    const auto eq = part.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == part.size()) {
      throw UserError(fmt::format(
          "--versions: '{}' is not NAME=VERSION (e.g. torch=2.9.1,onnxscript=0.5.7)", part));
    }
    filter.emplace_back(part.substr(0, eq), part.substr(eq + 1));
  }
  return filter;
}

bool version_matches(const std::string& wanted, const std::string& actual) {
  if (actual == wanted) return true;
  if (actual.size() <= wanted.size() || !actual.starts_with(wanted)) return false;
  const char next = actual[wanted.size()];
  return next == '.' || next == '+';
}

}  // namespace capmap

#include "run/byte_size.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cmath>

#include "common/user_error.h"

namespace capmap {

std::uint64_t parse_byte_size(std::string_view text) {
  auto bad = [&] {
    return UserError(fmt::format("'{}': not a size (examples: 8G, 512M, 1.5GiB, 1048576)", text));
  };
  size_t digits = 0;
  while (digits < text.size() &&
         (std::isdigit(static_cast<unsigned char>(text[digits])) || text[digits] == '.')) {
    ++digits;
  }
  if (digits == 0) throw bad();
  double number = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + digits, number);
  if (ec != std::errc() || end != text.data() + digits) throw bad();

  std::string unit;
  for (char c : text.substr(digits)) {
    if (c != ' ') unit += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  double scale = 1;
  if (unit.empty() || unit == "B") {
    scale = 1;
  } else {
    static constexpr std::string_view kUnits = "KMGT";
    size_t power = kUnits.find(unit[0]);
    std::string rest = unit.substr(1);
    if (power == std::string_view::npos || !(rest.empty() || rest == "B" || rest == "IB")) {
      throw bad();
    }
    scale = std::pow(1024.0, static_cast<double>(power + 1));
  }
  double bytes = number * scale;
  if (bytes < 1 || bytes > 1.8e19) throw bad();
  return static_cast<std::uint64_t>(bytes);
}

std::string format_byte_size(std::uint64_t bytes) {
  static constexpr const char* kNames[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024 && unit < 4) {
    value /= 1024;
    ++unit;
  }
  if (unit == 0) return fmt::format("{} B", bytes);
  return fmt::format("{:.1f} {}", value, kNames[unit]);
}

}  // namespace capmap

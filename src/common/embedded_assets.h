#pragma once
// Files compiled into the binary at build time: page assets from
// src/render/assets/ and the shipped rules from rules/.
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace capmap {

// The bytes of the embedded file with this base name, or nothing.
std::optional<std::string_view> embedded_asset(std::string_view name);

// The embedded file's bytes; a missing one is a broken build, not a user error.
inline std::string required_asset(std::string_view name) {
  auto bytes = embedded_asset(name);
  if (!bytes) throw std::runtime_error("asset missing from the build: " + std::string(name));
  return std::string(*bytes);
}

}  // namespace capmap

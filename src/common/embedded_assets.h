#pragma once
// Files compiled into the binary at build time: page assets from
// src/render/assets/ and the shipped rules from rules/.
#include <optional>
#include <string_view>

namespace capmap {

// The bytes of the embedded file with this base name, or nothing.
std::optional<std::string_view> embedded_asset(std::string_view name);

}  // namespace capmap

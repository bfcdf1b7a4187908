#pragma once
// FNV-1a 64: a stable hash for run keys and shard assignment (std::hash is not
// stable across builds).
#include <cstdint>
#include <string>
#include <string_view>

namespace capmap {

std::uint64_t fnv1a64(std::string_view bytes);
// 16 lowercase hex digits of fnv1a64(bytes).
std::string fnv1a64_hex(std::string_view bytes);

}  // namespace capmap

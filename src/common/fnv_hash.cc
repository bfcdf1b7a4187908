#include "common/fnv_hash.h"

#include <fmt/format.h>

namespace capmap {

std::uint64_t fnv1a64(std::string_view bytes) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (unsigned char c : bytes) {
    hash ^= c;
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

std::string fnv1a64_hex(std::string_view bytes) { return fmt::format("{:016x}", fnv1a64(bytes)); }

}  // namespace capmap

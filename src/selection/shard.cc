#include "selection/shard.h"

#include <fmt/format.h>

#include <charconv>

#include "common/fnv_hash.h"
#include "common/user_error.h"

namespace capmap {

namespace {

bool parse_positive(std::string_view text, int& out) {
  if (text.empty()) return false;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size() && out > 0;
}

}  // namespace

Shard parse_shard(std::string_view text) {
  size_t slash = text.find('/');
  Shard shard;
  if (slash == std::string_view::npos || !parse_positive(text.substr(0, slash), shard.index) ||
      !parse_positive(text.substr(slash + 1), shard.count)) {
    throw UserError(fmt::format("--shard '{}': expected I/N with 1 <= I <= N, e.g. 2/4", text));
  }
  if (shard.index > shard.count) {
    throw UserError(fmt::format("--shard '{}': shard {} does not exist among {} shards", text,
                                shard.index, shard.count));
  }
  return shard;
}

bool shard_owns(const Shard& shard, std::string_view case_name) {
  return fnv1a64(case_name) % static_cast<std::uint64_t>(shard.count) ==
         static_cast<std::uint64_t>(shard.index - 1);
}

}  // namespace capmap

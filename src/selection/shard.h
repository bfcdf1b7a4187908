#pragma once
// Deterministic slices of the cases for running on several machines: shard
// I/N (1-based) owns the cases whose FNV-1a 64 of the name, mod N, is I-1.
#include <string_view>

namespace capmap {

struct Shard {
  int index = 1;
  int count = 1;
};

// Parses "I/N"; throws UserError naming the text when it is not a shard.
Shard parse_shard(std::string_view text);

bool shard_owns(const Shard& shard, std::string_view case_name);

}  // namespace capmap

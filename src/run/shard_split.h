#pragma once
// Which of a run's cases one shard owns. By name (the default): the FNV-1a
// hash of the case's name (see shard.h), the same slice whatever else the run
// selects. By time: the cases packed longest first into N shards by their
// expected seconds (known_durations.h), so the N jobs of a CI matrix finish
// together; every job must see the same cases and the same durations (the
// baseline's), or the shards overlap.
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "run/scheduler.h"
#include "selection/shard.h"

namespace capmap {

enum class ShardBy { kName, kTime };

// "name" or "time"; throws UserError naming the text otherwise.
ShardBy parse_shard_by(std::string_view text);

// The cases of `cases` (in their order) that `shard` owns; all of them when
// the split has one shard.
std::vector<nlohmann::json> shard_cases(const std::vector<nlohmann::json>& cases,
                                        const Shard& shard, ShardBy by,
                                        const DurationTable& durations,
                                        const std::vector<std::string>& paths);

}  // namespace capmap

#pragma once
// How long a planned run should take: the cases it dispatches, and the wall of
// each of its shard jobs, packed longest first by the known durations.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "run/scheduler.h"
#include "run/shard_split.h"

namespace capmap {

// The cases a run dispatches, in order: skip cases take no slot.
std::vector<nlohmann::json> dispatched_cases(const std::vector<nlohmann::json>& cases);

// The predicted wall of each of `count` shards of `cases` (split `by`, with
// `split_durations` as every job sees them), each run on `jobs` slots with
// `durations` for the expected seconds.
std::vector<double> shard_walls(const std::vector<nlohmann::json>& cases, int count, ShardBy by,
                                const DurationTable& split_durations,
                                const DurationTable& durations,
                                const std::vector<std::string>& paths, int jobs);

}  // namespace capmap

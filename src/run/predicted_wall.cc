#include "run/predicted_wall.h"

#include "run/known_durations.h"
#include "run/longest_first.h"

namespace capmap {

std::vector<nlohmann::json> dispatched_cases(const std::vector<nlohmann::json>& cases) {
  std::vector<nlohmann::json> out;
  for (const auto& c : cases) {
    if (!c.contains("skip") || !c["skip"].is_string()) out.push_back(c);
  }
  return out;
}

std::vector<double> shard_walls(const std::vector<nlohmann::json>& cases, int count, ShardBy by,
                                const DurationTable& split_durations,
                                const DurationTable& durations,
                                const std::vector<std::string>& paths, int jobs) {
  std::vector<double> walls;
  for (int i = 1; i <= count; ++i) {
    auto theirs = dispatched_cases(shard_cases(cases, {i, count}, by, split_durations, paths));
    walls.push_back(
        pack_longest_first(expected_case_seconds(theirs, paths, durations), jobs).wall());
  }
  return walls;
}

}  // namespace capmap

#include "run/shard_split.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "common/user_error.h"
#include "run/known_durations.h"
#include "run/longest_first.h"

namespace capmap {

ShardBy parse_shard_by(std::string_view text) {
  if (text == "name") return ShardBy::kName;
  if (text == "time") return ShardBy::kTime;
  throw UserError(fmt::format("--shard-by '{}': expected name or time", text));
}

std::vector<nlohmann::json> shard_cases(const std::vector<nlohmann::json>& cases,
                                        const Shard& shard, ShardBy by,
                                        const DurationTable& durations,
                                        const std::vector<std::string>& paths) {
  if (shard.count <= 1) return cases;
  std::vector<nlohmann::json> owned;
  if (by == ShardBy::kName) {
    for (const auto& c : cases) {
      if (shard_owns(shard, c.value("name", ""))) owned.push_back(c);
    }
    return owned;
  }
  // Packed in name order, so that the split does not hang on the order cases come in.
  std::vector<std::size_t> by_name(cases.size());
  std::iota(by_name.begin(), by_name.end(), std::size_t{0});
  std::stable_sort(by_name.begin(), by_name.end(), [&](std::size_t a, std::size_t b) {
    return cases[a].value("name", "") < cases[b].value("name", "");
  });
  std::vector<nlohmann::json> sorted;
  for (std::size_t i : by_name) sorted.push_back(cases[i]);
  auto packing = pack_longest_first(expected_case_seconds(sorted, paths, durations), shard.count);
  std::vector<bool> mine(cases.size(), false);
  for (std::size_t k = 0; k < by_name.size(); ++k) {
    mine[by_name[k]] = packing.bin_of[k] == shard.index - 1;
  }
  for (std::size_t i = 0; i < cases.size(); ++i) {
    if (mine[i]) owned.push_back(cases[i]);
  }
  return owned;
}

}  // namespace capmap

#include "merge/store_set.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "common/user_error.h"
#include "merge/named_examples.h"
#include "store/run_difference.h"

namespace capmap {
namespace {

// "torch 2.12.0 → 2.13.0, settings.opset 17 → 18": what separates two run keys.
std::string run_difference(const nlohmann::json& a, const nlohmann::json& b) {
  auto changes = environment_differences(a, b, kRunKeyLibraryFields);
  return changes.empty() ? "same versions" : join_examples(changes, changes.size());
}

RunSelection as_run_selection(const StoredSelection& row) {
  RunSelection selection;
  selection.registry_cases = row.registry_cases;
  selection.cases = row.cases;
  selection.only = row.only;
  selection.tags = row.tags;
  if (row.shard_count > 1) selection.shards.push_back({row.shard, row.shard_count});
  return selection;
}

}  // namespace

StoreList open_stores(const std::vector<std::filesystem::path>& files) {
  StoreList stores;
  std::set<std::filesystem::path> seen;
  for (const auto& file : files) {
    auto canonical = std::filesystem::weakly_canonical(file);
    if (!seen.insert(canonical).second) {
      throw UserError(fmt::format("{}: store given twice", file.string()));
    }
    stores.push_back(std::make_unique<StoreReader>(file));
  }
  return stores;
}

std::vector<bool> stores_with_run(const StoreList& stores,
                                  const std::vector<std::vector<StoredRun>>& runs_per_store,
                                  const std::string& run_key, const nlohmann::json& run_info,
                                  std::vector<std::string>& problems) {
  std::vector<bool> usable(stores.size(), false);
  for (std::size_t i = 0; i < stores.size(); ++i) {
    const auto& runs = runs_per_store[i];
    usable[i] = std::any_of(runs.begin(), runs.end(),
                            [&](const StoredRun& r) { return r.run_key == run_key; });
    if (usable[i]) continue;
    const StoredRun* other = nullptr;
    for (const auto& run : runs) {
      if (!other || run.created > other->created) other = &run;
    }
    problems.push_back(
        other ? fmt::format("records come from different run keys: {} holds run {} ({}), not {}",
                            stores[i]->file().string(), other->run_key,
                            run_difference(other->info, run_info), run_key)
              : fmt::format("{}: store holds no run", stores[i]->file().string()));
  }
  return usable;
}

ShardCoverage check_shards(const StoreList& stores, const std::vector<bool>& usable,
                           const std::string& run_key, bool gaps_carried,
                           std::vector<std::string>& problems) {
  ShardCoverage coverage;
  std::map<std::pair<int, int>, std::string> shard_owner;
  for (std::size_t i = 0; i < stores.size(); ++i) {
    if (!usable[i]) continue;
    for (const auto& shard : stores[i]->shards(run_key)) {
      for (const auto& path : shard.paths) {
        auto& paths = coverage.paths;
        if (std::find(paths.begin(), paths.end(), path) == paths.end()) paths.push_back(path);
      }
      coverage.shard_counts.insert(shard.shard_count);
      auto [it, fresh] = shard_owner.emplace(std::make_pair(shard.shard_count, shard.shard),
                                             stores[i]->file().string());
      if (!fresh) {
        problems.push_back(fmt::format("shards overlap: shard {}/{} is in both {} and {}",
                                       shard.shard, shard.shard_count, it->second,
                                       stores[i]->file().string()));
      }
    }
  }
  if (coverage.shard_counts.size() > 1) {
    std::vector<std::string> splits;
    for (int n : coverage.shard_counts) splits.push_back(fmt::format("{}", n));
    problems.push_back(
        fmt::format("shards overlap: the stores split the run into different shard counts ({})",
                    join_examples(splits, splits.size())));
  } else if (coverage.shard_counts.size() == 1) {
    int count = *coverage.shard_counts.begin();
    auto& gaps = coverage.gaps;
    for (int s = 1; s <= count; ++s) {
      if (!shard_owner.count({count, s})) gaps.push_back(fmt::format("{}/{}", s, count));
    }
    if (!gaps.empty() && !gaps_carried) {
      problems.push_back(fmt::format("shards leave a gap: {} of {} missing ({})", gaps.size(),
                                     count, join_examples(gaps, gaps.size())));
    }
  }
  return coverage;
}

StoredInventory read_inventory(const StoreList& stores, const std::vector<bool>& usable,
                               const std::string& run_key) {
  StoredInventory inventory;
  inventory.selections.emplace();
  for (std::size_t i = 0; i < stores.size(); ++i) {
    if (!usable[i]) continue;
    auto stored = stores[i]->selections(run_key);
    if (!stored || stored->empty()) inventory.selections.reset();
    if (inventory.selections) {
      for (const auto& row : *stored) inventory.selections->push_back(as_run_selection(row));
    }
    for (auto& info : stores[i]->cases(run_key)) {
      if (!info.is_object() || !info.contains("name") || !info["name"].is_string()) {
        throw UserError(
            fmt::format("{}: a case of run {} has no name", stores[i]->file().string(), run_key));
      }
      std::string name = info["name"];
      info.erase("paths");
      inventory.cases.emplace(name, std::move(info));
    }
    for (auto& info : stores[i]->excludes(run_key)) {
      if (info.is_object() && info.contains("name"))
        inventory.excludes.emplace(info["name"].dump(), std::move(info));
    }
  }
  return inventory;
}

}  // namespace capmap

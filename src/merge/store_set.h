#pragma once
// The stores one merge reads (one per shard, or one for a whole run) and what
// they hold of the chosen run key: which stores hold it, whether their shards
// make up one split, and the inventory they were asked to measure. Each step
// adds a line to `problems` for what would make the merge refuse.
#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "selection/run_selection.h"
#include "store/store_reader.h"

namespace capmap {

using StoreList = std::vector<std::unique_ptr<StoreReader>>;

// Opens every store; throws UserError for a store given twice or one that is not a store.
StoreList open_stores(const std::vector<std::filesystem::path>& files);

// Which stores hold `run_key` (run with `run_info`); a problem for each that does not.
std::vector<bool> stores_with_run(const StoreList& stores,
                                  const std::vector<std::vector<StoredRun>>& runs_per_store,
                                  const std::string& run_key, const nlohmann::json& run_info,
                                  std::vector<std::string>& problems);

struct ShardCoverage {
  std::vector<std::string> paths;  // the paths the shards measured, in the order first seen
  std::set<int> shard_counts;      // empty: the stores predate shard rows
  std::vector<std::string> gaps;   // the shards no store holds ("2/3")
};

// The shards of `run_key` in the usable stores: one split, each shard once, none missing —
// unless `gaps_carried` (a baseline carries the records a missing shard would hold: one
// shard of a survey measured again, the rest carried).
ShardCoverage check_shards(const StoreList& stores, const std::vector<bool>& usable,
                           const std::string& run_key, bool gaps_carried,
                           std::vector<std::string>& problems);

struct StoredInventory {
  std::map<std::string, nlohmann::json> cases;     // CASE by name, without `paths`
  std::map<std::string, nlohmann::json> excludes;  // by the JSON of their name
  // What the runs were asked for; nullopt when any store predates the record.
  std::optional<std::vector<RunSelection>> selections;
};

// Every store holds the whole inventory; throws UserError for a case without a name.
StoredInventory read_inventory(const StoreList& stores, const std::vector<bool>& usable,
                               const std::string& run_key);

}  // namespace capmap

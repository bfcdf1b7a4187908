#pragma once
// The records of one run key gathered from the stores, and each case's entry
// of the snapshot: a record for every path, a skipped case answered by its
// reason, a result the stores lack carried over from a baseline, else `missing`.
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "merge/baseline.h"
#include "merge/store_set.h"

namespace capmap {

struct CollectedRecords {
  std::map<std::string, std::map<std::string, nlohmann::json>> by_case;  // case → path → RECORD
  std::string newest;  // `created` of the newest record, empty when there is none
};

// The records of the cases in `inventory`, with each repro verdict that checked
// that very record. A case × path in two stores is a problem (shards overlap).
// Without shard rows the paths come from the records: each joins `paths`.
CollectedRecords collect_records(const StoreList& stores, const std::vector<bool>& usable,
                                 const std::string& run_key, const StoredInventory& inventory,
                                 bool paths_from_records, std::vector<std::string>& paths,
                                 std::vector<std::string>& problems);

// The snapshot's case list, in name order; consumes `cases` and `records`.
// `carry_from` (a baseline measured under the same versions, or null) answers
// what the stores lack. Missing records are a problem.
nlohmann::json case_entries(std::map<std::string, nlohmann::json>& cases, CollectedRecords& records,
                            const std::vector<std::string>& paths, const Baseline* carry_from,
                            std::size_t& missing_count, std::vector<std::string>& problems);

}  // namespace capmap

#pragma once
// Adds what a reader sees to every path of every case in a snapshot:
// page_status, and for anything short of a clean `ok` the cause, category and
// detail; each graph-break reason gets its own cause and category too.
// Runs at merge time and again when `capmap causes` re-reads a snapshot, so a
// better rule never needs a re-run.
#include <nlohmann/json.hpp>
#include <vector>

#include "common/path_info.h"
#include "merge/cause_rules.h"

namespace capmap {

// A path's own statuses map to page statuses as its description says; the
// rest (engine statuses, data without descriptions) through page_status().
void classify_paths(nlohmann::json& cases, const CauseRules& rules,
                    const std::vector<PathInfo>& paths = {});

// The snapshot header's path descriptions (none in older snapshots).
std::vector<PathInfo> snapshot_path_infos(const nlohmann::json& snapshot);

}  // namespace capmap

#pragma once
// Adds what a reader sees to every path of every case in a snapshot:
// page_status, and for anything short of a clean `ok` the cause, category and
// detail; each graph-break reason gets its own cause and category too.
// Runs at merge time and again when `capmap causes` re-reads a snapshot, so a
// better rule never needs a re-run.
#include <nlohmann/json.hpp>

#include "merge/cause_rules.h"

namespace capmap {

void classify_paths(nlohmann::json& cases, const CauseRules& rules);

}  // namespace capmap

#pragma once
// Which part of a registry a run measured: the snapshot header's `selection`
// (docs/reference/snapshot.md). A run of a few cases must never pass for the whole
// registry, so the run records it, merge combines it, the pages show it and
// diff tells a removed case from one the other side never selected.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "selection/shard.h"

namespace capmap {

struct RunSelection {
  long long registry_cases = 0;   // cases in the registry when the run started
  long long cases = 0;            // cases the selection holds
  std::vector<std::string> only;  // --only patterns, sorted; empty: no such filter
  std::vector<std::string> tags;  // --tag (or the default tier's tag), sorted; empty: none
  std::vector<Shard> shards;      // shards measured, sorted; empty: every shard
};

// True when no filter and no shard split narrowed the registry.
bool selects_whole_registry(const RunSelection& selection);

// The union of several runs' selections (one per run and shard): patterns and
// tags are merged unless one run had no filter at all, and the shards of one
// split that are all present count as every shard. `cases` is left at 0 for
// the caller, who knows which cases the union holds.
RunSelection combine_selections(const std::vector<RunSelection>& runs);

// The header's `selection` object and back. A missing or null header field
// (a snapshot written before capmap recorded it) reads as nullopt; a malformed
// one throws UserError naming `where`.
nlohmann::json selection_to_json(const RunSelection& selection);
std::optional<RunSelection> selection_from_json(const nlohmann::json& header,
                                                const std::string& where);

// "41 of 1,371 registry cases (tag quick)", "all 8 registry cases".
std::string describe_selection(const RunSelection& selection);
// "1/4", "1/4, 3/4".
std::string shards_text(const std::vector<Shard>& shards);

// Whether a run with this selection would have measured `case_entry` (a CASE
// or snapshot case): nullopt when the entry lacks what a filter looks at
// (a group or tags, e.g. a case read from another tool's file).
std::optional<bool> selection_covers(const RunSelection& selection,
                                     const nlohmann::json& case_entry);

}  // namespace capmap

#pragma once
// `capmap merge`: the records of one run key, from one or more stores (shards),
// validated, classified and written as one deterministic snapshot JSON.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "merge/version_filter.h"

namespace capmap {

struct MergeOptions {
  std::vector<std::filesystem::path> stores;
  std::filesystem::path out;
  std::optional<std::filesystem::path> kornia_json;
  std::vector<std::filesystem::path> rules;
  bool force = false;
  std::string run_key;  // empty: newest run key in the stores
  // Without a run key: only runs whose environment matches (see run_choice.h).
  VersionFilter versions;
  // Results for the case × paths the stores lack, carried over (marked
  // `carried`); its versions and settings must be those of the run.
  std::optional<std::filesystem::path> baseline;
};

// Writes out (atomically), returns the snapshot. Throws UserError, writing
// nothing, when a case × path has no record, the stores hold different run
// keys, or the shards overlap or leave a gap — unless force is set, which
// writes anyway with header.complete = false.
nlohmann::json merge_stores(const MergeOptions&);

struct MergedSnapshot {
  nlohmann::json snapshot;
  // Why a merge would be refused, most fundamental first; one line each.
  std::vector<std::string> problems;
  // Set when the stores hold runs of several environments and the newest was
  // taken: one line naming it and how to pick another.
  std::string choice_note;
};

// Everything merge_stores does except refusing and writing; `capmap causes`
// uses it to look at a store that may still be incomplete.
MergedSnapshot build_snapshot(const MergeOptions&);

}  // namespace capmap

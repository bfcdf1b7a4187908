#pragma once
// What differs between two snapshot headers, as diff lists it: versions, settings, library,
// exclusions by name; never the merge time or the selection (diff words that itself).
#include <nlohmann/json.hpp>
#include <vector>

#include "diff/snapshot_diff.h"

namespace capmap {

// `no_common_path`: both sides name their paths and share none (then the paths differ even
// against Kornia's file, which otherwise has no eager column to compare).
std::vector<HeaderChange> header_changes(const nlohmann::json& old_header_json,
                                         const nlohmann::json& new_header_json,
                                         bool no_common_path);

}  // namespace capmap

#pragma once
// The sections a snapshot diff is reported in, the same in text, Markdown and JSON.
#include <array>
#include <cstddef>
#include <map>
#include <string>
#include <utility>

#include "diff/snapshot_diff.h"

namespace capmap {

struct ChangeSection {
  ChangeKind kind;
  const char* title;
  const char* json_key;
};

inline constexpr std::array<ChangeSection, 12> kChangeSections{{
    {ChangeKind::kRegression, "Regressions", "regressions"},
    {ChangeKind::kSlowTimeout, "Timeouts of slow captures (not counted as regressions)",
     "slow_timeouts"},
    {ChangeKind::kFix, "Fixes", "fixes"},
    {ChangeKind::kCauseChanged, "Changed causes", "cause_changes"},
    {ChangeKind::kBreaksChanged, "Graph-break changes", "graph_break_changes"},
    {ChangeKind::kStatusChanged, "Status changes", "status_changes"},
    {ChangeKind::kConfigDiffers, "Paired with another configuration", "config_differs"},
    {ChangeKind::kProbedOnOneSide, "Probed by one side only", "probed_on_one_side"},
    {ChangeKind::kNewCase, "New cases", "new_cases"},
    {ChangeKind::kRemovedCase, "Removed cases", "removed_cases"},
    {ChangeKind::kOutsideNewSelection, "Only in the old side (outside the new selection)",
     "outside_new_selection"},
    {ChangeKind::kOutsideOldSelection, "Only in the new side (outside the old selection)",
     "outside_old_selection"},
}};

// Regressions and fixes of each path, paths by name: which capture path a change moved.
std::map<std::string, std::pair<std::size_t, std::size_t>> regressions_and_fixes_by_path(
    const SnapshotDiff& diff);

}  // namespace capmap

#pragma once
// What a run knows of its cases' durations before measuring them: the records
// of a snapshot (the --baseline), overlaid by the store's earlier records.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "run/scheduler.h"

namespace capmap {

// (case, path) → `seconds` of each record the snapshot holds.
DurationTable snapshot_durations(const nlohmann::json& snapshot);

// `earlier` with every entry of `later` put over it.
DurationTable overlay_durations(DurationTable earlier, const DurationTable& later);

// The seconds of a case's `paths` together; nullopt when any is unknown.
std::optional<double> case_seconds(const std::string& case_name,
                                   const std::vector<std::string>& paths,
                                   const DurationTable& durations);

// Seconds of each case (in order) over `paths`; a case without a known figure
// gets the median of the known ones (1 s when none is known), and `unknown`
// counts them.
std::vector<double> expected_case_seconds(const std::vector<nlohmann::json>& cases,
                                          const std::vector<std::string>& paths,
                                          const DurationTable& durations,
                                          std::size_t* unknown = nullptr);

}  // namespace capmap

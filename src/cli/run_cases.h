#pragma once
// Which cases `capmap run` measures, once the worker has announced the
// registry: the filter (or the default tier), the shard, and with --changed
// only the cases the change can affect.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/run_setup.h"
#include "merge/baseline.h"
#include "run/known_durations.h"
#include "selection/changed_files.h"

namespace capmap {

struct RunCases {
  // What the store's inventory holds: the cases the run was asked to measure,
  // before the shard split, so merge can tell a finished quick tier from a
  // shard's gap.
  std::vector<nlohmann::json> asked;
  std::vector<nlohmann::json> selected;  // the cases this run (this shard) runs
  std::size_t shard_case_count = 0;      // the shard's cases before --changed narrowed them
  DurationTable baseline_durations;      // what the baseline says each task takes
};

// The cases of `inventory` (the hello's CASE list) this run measures; settles
// the default tier in `setup.filter`.
RunCases select_run_cases(const nlohmann::json& inventory, const RunCommandOptions& options,
                          RunSetup& setup, const Baseline* baseline,
                          const std::vector<std::string>& paths);

// --changed: only the cases the change can affect run; with a baseline the
// others are carried over at merge, else the run asks only for those. Says on
// stderr how many and why. `this_run` is {"library","versions","settings"}.
void narrow_to_change(RunCases& cases, const RunSetup& setup, const Baseline* baseline,
                      const nlohmann::json& this_run, ChangedFiles changed_files,
                      const std::vector<std::string>& paths);

}  // namespace capmap

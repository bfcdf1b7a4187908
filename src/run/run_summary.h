#pragma once
// The report printed when a run ends: records by path and status over the
// whole selection (this run's and earlier ones under the same key), then one
// key=value line of figures that scripts (bench/) read.
#include <string>
#include <vector>

#include "run/supervisor.h"
#include "store/result_store.h"

namespace capmap {

struct RunFigures {
  RunStats stats;
  int workers = 0;
  double supervisor_cpu_seconds = 0;  // user + system time of capmap itself during the run
  std::size_t cases_ran = 0;          // cases selected to run (all of them without --changed)
  std::size_t cases_carried = 0;      // cases taken from the baseline instead (run --baseline)
};

// The status table for the selected cases and paths, from the store.
std::string format_run_table(ResultStore& store, const std::string& run_key,
                             const std::vector<std::string>& case_names,
                             const std::vector<std::string>& paths);

// "summary: tasks=... records=... wall_s=... tasks_per_s=... workers=...
//  fork_ms_median=... capmap_cpu_percent=... malformed_lines=... worker_restarts=...
//  fresh_reruns=..."
std::string format_figures_line(const RunFigures& figures);

// CPU seconds (user + system) this process has used so far.
double process_cpu_seconds();

}  // namespace capmap

#include "run/run_summary.h"

#include <fmt/format.h>
#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "run/progress_display.h"

namespace capmap {

std::string format_run_table(ResultStore& store, const std::string& run_key,
                             const std::vector<std::string>& case_names,
                             const std::vector<std::string>& paths) {
  std::set<std::string> selected(case_names.begin(), case_names.end());
  std::map<std::string, std::map<std::string, size_t>> counts;
  for (const auto& [key, record] : store.records(run_key)) {
    if (!selected.count(key.first)) continue;
    if (std::find(paths.begin(), paths.end(), key.second) == paths.end()) continue;
    ++counts[key.second][record.status];
  }
  return format_status_table(paths, counts);
}

std::string format_figures_line(const RunFigures& figures) {
  const RunStats& s = figures.stats;
  double wall = s.wall_seconds > 0 ? s.wall_seconds : 1e-9;
  auto latencies = s.fork_latencies;
  std::sort(latencies.begin(), latencies.end());
  auto quantile = [&](double q) {
    if (latencies.empty()) return 0.0;
    auto i = static_cast<size_t>(std::lround(q * static_cast<double>(latencies.size() - 1)));
    return latencies[i] * 1000;
  };
  return fmt::format(
      "summary: tasks={} records={} wall_s={:.2f} tasks_per_s={:.3f} workers={} "
      "fork_ms_median={:.1f} fork_ms_p90={:.1f} capmap_cpu_s={:.3f} capmap_cpu_percent={:.2f} "
      "malformed_lines={} worker_restarts={} fresh_reruns={} cases_ran={} cases_carried={}",
      s.tasks_finished, s.records_written, s.wall_seconds,
      static_cast<double>(s.tasks_finished) / wall, figures.workers, quantile(0.5), quantile(0.9),
      figures.supervisor_cpu_seconds, 100.0 * figures.supervisor_cpu_seconds / wall,
      s.malformed_lines, s.worker_restarts, s.fresh_reruns, figures.cases_ran,
      figures.cases_carried);
}

double process_cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

}  // namespace capmap

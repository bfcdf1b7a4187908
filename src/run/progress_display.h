#pragma once
// ProgressDisplay: what a person watching a run sees. On a terminal, one live
// status line; otherwise (a CI log) one line per finished task. Both count
// records by status.
#include <chrono>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace capmap {

struct RunningTaskView {
  std::string label;  // "case [path]"
  double seconds = 0;
};

class ProgressDisplay {
 public:
  // `total` counts the (case, path) records this run must still produce.
  ProgressDisplay(std::FILE* out, bool live, size_t total);

  void record(const std::string& status);
  // One finished task: its records as (path, status), in path order, and
  // why its eager reference failed ("" when it did not), on a line of its own.
  void task_finished(const std::string& case_name,
                     const std::vector<std::pair<std::string, std::string>>& outcomes,
                     double seconds, const std::string& eager_failure = "");
  // Redraws the live line (at most a few times a second); no-op when not live.
  void refresh(const std::vector<RunningTaskView>& running);
  // A message that must not be overwritten by the live line.
  void note(const std::string& line);
  // Erases the live line before the final report.
  void finish();

  size_t done() const { return done_; }

 private:
  std::string status_counts() const;
  void clear_live_line();

  std::FILE* out_;
  bool live_;
  size_t total_;
  size_t done_ = 0;
  std::map<std::string, size_t> by_status_;
  std::chrono::steady_clock::time_point started_;
  std::chrono::steady_clock::time_point last_draw_{};
  bool line_drawn_ = false;
};

// The summary printed after a run: one row per path, one column per status.
// `counts` maps path → status → records.
std::string format_status_table(const std::vector<std::string>& paths,
                                const std::map<std::string, std::map<std::string, size_t>>& counts);

}  // namespace capmap

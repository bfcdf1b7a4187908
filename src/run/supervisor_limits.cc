// The supervisor's limits on a running task: time per path and memory of its
// process group, ended by SIGTERM, then SIGKILL, then the worker itself.
#include <signal.h>

#include <map>
#include <set>

#include "run/path_time_limit.h"
#include "run/process_control.h"
#include "run/supervisor.h"

namespace capmap {

namespace {

// Every tenth check walks all of /proc to also count what left a child's
// process tree but not its group; the others walk just the tree (cheap).
constexpr int kRssChecksPerGroupScan = 10;
// After SIGKILL, how long a worker may take to report its child's end before
// the worker itself is presumed stuck and killed.
constexpr auto kDoneAfterKillLimit = std::chrono::seconds(5);

}  // namespace

double Supervisor::time_limit(const RunningTask& running) const {
  std::optional<double> known;
  if (durations_ != nullptr) {
    auto it = durations_->find({running.task.case_name, running.path});
    if (it != durations_->end()) known = it->second;
  }
  return path_time_limit(options_.timeout_seconds, known);
}

void Supervisor::enforce_limits() {
  auto now = Clock::now();
  auto grace = std::chrono::duration<double>(options_.kill_grace_seconds);
  for (auto& slot : slots_) {
    if (!slot.running || worker_pid(slot) == 0) continue;
    RunningTask& running = *slot.running;
    auto limit = std::chrono::duration<double>(time_limit(running));
    if (running.kill == KillReason::kNone && now - running.path_started > limit) {
      running.kill = KillReason::kTimeout;
      running.kill_sent = now;
      if (running.child > 0) {
        signal_process_group(running.child, SIGTERM);
      } else {
        // No child yet: the worker itself is stuck.
        signal_process_group(worker_pid(slot), SIGKILL);
        running.sigkill_sent = true;
      }
    } else if (running.kill != KillReason::kNone && !running.sigkill_sent &&
               now - running.kill_sent > grace) {
      signal_process_group(running.child, SIGKILL);
      running.sigkill_sent = true;
      running.kill_sent = now;
    } else if (running.sigkill_sent && now - running.kill_sent > kDoneAfterKillLimit) {
      signal_process_group(worker_pid(slot), SIGKILL);
      running.kill_sent = now;
    }
  }

  if (now - last_rss_check_ < kRssCheckInterval) return;
  last_rss_check_ = now;
  std::set<pid_t> groups;
  for (const auto& slot : slots_) {
    if (slot.running && slot.running->child > 0 && slot.running->kill == KillReason::kNone) {
      groups.insert(slot.running->child);
    }
  }
  if (groups.empty()) return;
  std::map<pid_t, std::uint64_t> rss;
  if (++rss_checks_ % kRssChecksPerGroupScan == 0) {
    rss = process_group_rss(groups);
  } else {
    for (pid_t group : groups) rss[group] = process_tree_rss(group);
  }
  for (auto& slot : slots_) {
    if (!slot.running || slot.running->kill != KillReason::kNone) continue;
    auto it = rss.find(slot.running->child);
    if (it == rss.end() || it->second <= options_.memory_limit) continue;
    signal_process_group(slot.running->child, SIGKILL);
    slot.running->kill = KillReason::kOom;
    slot.running->rss_at_kill = it->second;
    slot.running->sigkill_sent = true;
    slot.running->kill_sent = now;
  }
}

}  // namespace capmap

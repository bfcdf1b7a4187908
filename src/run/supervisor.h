#pragma once
// Supervisor: runs the task queue on N job slots hosted by worker processes
// and turns everything that can happen to a task into a stored record. A
// worker forks one child per task and runs the children of all its slots at
// once, so a run pays the worker's import and warm-up once per worker, not
// once per slot. A child that dies, hangs or eats memory costs only the path it
// was in: that path gets a crashed, timeout or oom record and the paths after
// it run again in a fresh child. A worker that dies is restarted; the task that
// made the supervisor kill it is blamed, its other tasks run again, and a
// worker that died on its own takes the blame to every task it held.
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "run/interrupt_watcher.h"
#include "run/progress_display.h"
#include "run/scheduler.h"
#include "run/shared_code_folder.h"
#include "run/task.h"
#include "run/worker_channel.h"
#include "store/result_store.h"

namespace capmap {

struct SupervisorOptions {
  std::string python;
  std::vector<std::string> registries;
  nlohmann::json settings = nlohmann::json::object();
  // Paths each worker uses once on tiny inputs before it serves tasks, so
  // their one-time start-up is paid there and not in every forked child.
  // Only a run of at least `warm_up_min_tasks` tasks warms up: it costs
  // seconds that a run of a case or two would not win back.
  std::vector<std::string> warm_up_paths;
  size_t warm_up_min_tasks = 4;
  int jobs = 1;                             // job slots: tasks that run at once
  int workers = 1;                          // worker processes hosting the slots (at most `jobs`)
  double timeout_seconds = 420;             // per path (more for a known one: path_time_limit)
  std::uint64_t memory_limit = 8ull << 30;  // RSS of a task's process group
  double kill_grace_seconds = 3;            // SIGTERM → SIGKILL
  // Let a worker run several tasks in one child, in a row, while each leaves
  // no trace (see "Kept children" in docs/reference/worker-protocol.md); off: a child per task.
  bool reuse_children = true;
};

struct RunStats {
  size_t tasks_dispatched = 0;
  size_t tasks_finished = 0;
  size_t records_written = 0;
  size_t malformed_lines = 0;
  size_t worker_restarts = 0;
  size_t fresh_reruns = 0;             // tasks run again in a fresh child after a kept one died
  std::vector<double> fork_latencies;  // seconds from sending a task to its child starting
  double wall_seconds = 0;
  int interrupt_exit_code = 0;  // 130 after Ctrl-C, else 0
};

class Supervisor {
 public:
  Supervisor(SupervisorOptions options, InterruptWatcher& interrupts);
  ~Supervisor();  // kills every process still running
  Supervisor(const Supervisor&) = delete;
  Supervisor& operator=(const Supervisor&) = delete;

  // Starts the workers and returns the first `hello` (the inventory). Throws
  // UserError when the registry cannot be loaded. Returns nothing when
  // interrupted first.
  std::optional<nlohmann::json> start();

  // The paths the warm-up readies: known only once the hello announced them.
  void set_warm_up_paths(std::vector<std::string> paths) {
    options_.warm_up_paths = std::move(paths);
  }

  // Runs every queued task to a record. Records go to `store` as they come.
  RunStats run(Scheduler& queue, ResultStore& store, const std::string& run_key,
               const DurationTable& durations, ProgressDisplay& progress);

 private:
  using Clock = std::chrono::steady_clock;
  enum class KillReason { kNone, kTimeout, kOom };
  // How often running tasks' memory is measured (and the poll timeout while any run).
  static constexpr auto kRssCheckInterval = std::chrono::milliseconds(100);
  static double seconds_since(Clock::time_point start);

  struct RunningTask {
    Task task;
    std::int64_t id = 0;
    pid_t child = 0;   // pgid of the child, once started
    std::string path;  // the path the child is in ("" before the first)
    Clock::time_point dispatched;
    Clock::time_point path_started;
    std::vector<std::pair<std::string, std::string>> outcomes;  // (path, status)
    std::string eager_failure;  // "TypeError: ..." when the eager reference failed
    KillReason kill = KillReason::kNone;
    Clock::time_point kill_sent;
    bool sigkill_sent = false;
    std::uint64_t rss_at_kill = 0;
  };

  struct WorkerProcess {
    std::optional<WorkerChannel> channel;
    bool ready = false;    // hello received
    bool warming = false;  // warm_up sent, warmed not yet received
    int deaths_before_hello = 0;
  };

  // One job slot: at most one task at a time, run by a child of its worker.
  struct WorkerSlot {
    size_t worker = 0;  // index into workers_
    std::optional<RunningTask> running;
  };

  // What ended a task's child, when it ended without all its records.
  struct Ending {
    std::string signal;  // "SIGSEGV", or empty
    int exit_code = 0;
    std::string log_tail;
    bool worker_died = false;
    bool child_kept = false;  // the child lives on: its process group stays
    int earlier_tasks = 0;    // tasks the child ran before this one
  };

  void spawn(WorkerProcess& worker);
  // Asks a ready worker to warm up when this run does; tasks wait until it has.
  void warm_up(WorkerProcess& worker);
  // Waits for events on every worker (or the interrupt) and handles them.
  void poll_once(int timeout_ms);
  // One handler per event: the worker's own (hello, warmed, error), then a task's.
  void handle_event(size_t worker, WorkerEvent& event);
  void on_hello(size_t worker, WorkerEvent& event);
  void on_warmed(size_t worker, const WorkerEvent& event);
  [[noreturn]] void on_worker_error(const WorkerEvent& event) const;
  void on_started(RunningTask& running, const WorkerEvent& event);
  void on_path(RunningTask& running, const WorkerEvent& event);
  void on_record(RunningTask& running, const WorkerEvent& event);
  void handle_worker_exit(size_t worker);
  void finish_task(WorkerSlot& slot, const Ending& ending);
  // The task's paths that have no record yet, in the task's order.
  static std::vector<std::string> unrecorded_paths(const RunningTask& running);
  // A kept child that died in a task gets the task again in a fresh child.
  bool rerun_in_fresh_child(WorkerSlot& slot, const Ending& ending);
  // Puts a task's unrecorded paths back in the queue, uncounted: it was not to blame.
  void give_back(WorkerSlot& slot);
  pid_t worker_pid(const WorkerSlot& slot) const;
  nlohmann::json engine_record(const RunningTask& running, const Ending& ending,
                               const std::string& path, bool in_reference) const;
  void dispatch_idle_workers();
  void enforce_limits();
  // The running path's time limit: --timeout, more for a path a known record saw end.
  double time_limit(const RunningTask& running) const;
  void stop_everything();
  void shut_down_workers();
  void requeue(Task task);

  SupervisorOptions options_;
  InterruptWatcher& interrupts_;
  // Made before any worker starts; removed once the destructor has ended them.
  SharedCodeFolder code_folder_;
  std::vector<WorkerProcess> workers_;
  std::vector<WorkerSlot> slots_;
  std::optional<nlohmann::json> hello_;
  bool starting_ = true;
  bool warm_up_ = false;  // set by run() for a run big enough to win it back

  // Set for the duration of run().
  Scheduler* queue_ = nullptr;
  ResultStore* store_ = nullptr;
  ProgressDisplay* progress_ = nullptr;
  const DurationTable* durations_ = nullptr;
  std::string run_key_;
  RunStats stats_;
  std::int64_t next_task_id_ = 1;
  Clock::time_point last_rss_check_{};
  std::uint64_t rss_checks_ = 0;
};

}  // namespace capmap

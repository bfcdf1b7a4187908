#include "run/supervisor.h"

#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <thread>

#include "common/user_error.h"
#include "run/byte_size.h"
#include "run/process_control.h"

namespace capmap {

namespace {

constexpr auto kRssCheckInterval = std::chrono::milliseconds(100);
// Every tenth check walks all of /proc to also count what left a child's
// process tree but not its group; the others walk just the tree (cheap).
constexpr int kRssChecksPerGroupScan = 10;
// After SIGKILL, how long a worker may take to report its child's end before
// the worker itself is presumed stuck and killed.
constexpr auto kDoneAfterKillLimit = std::chrono::seconds(5);
constexpr int kMaxDeathsBeforeHello = 3;
// The worker's PROTOCOL_VERSION (python/capmap/worker/protocol.py) this engine speaks.
constexpr int kWorkerProtocolVersion = 2;
constexpr size_t kMalformedNotes = 5;

double seconds_between(std::chrono::steady_clock::time_point a,
                       std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

std::string describe_wait_status(int status) {
  if (WIFSIGNALED(status)) return "was killed by " + signal_name(WTERMSIG(status));
  return fmt::format("exited with code {}", WEXITSTATUS(status));
}

bool contains(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

}  // namespace

Supervisor::Supervisor(SupervisorOptions options, InterruptWatcher& interrupts)
    : options_(std::move(options)), interrupts_(interrupts) {}

Supervisor::~Supervisor() {
  for (auto& slot : slots_) {
    if (slot.running && slot.running->child > 0) {
      signal_process_group(slot.running->child, SIGKILL);
    }
  }
  for (auto& worker : workers_) {
    if (worker.channel) {
      pid_t pid = worker.channel->pid();
      worker.channel->close();
      signal_process_group(pid, SIGKILL);
      while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
      }
    }
  }
}

pid_t Supervisor::worker_pid(const WorkerSlot& slot) const {
  const auto& worker = workers_[slot.worker];
  return worker.channel ? worker.channel->pid() : 0;
}

void Supervisor::spawn(WorkerProcess& worker) {
  std::vector<std::string> argv = {options_.python, "-m", "capmap.worker", "--settings",
                                   options_.settings.dump()};
  argv.insert(argv.end(), options_.registries.begin(), options_.registries.end());
  worker.channel.emplace(spawn_worker(argv));
  worker.ready = false;
  worker.warming = false;
}

void Supervisor::warm_up(WorkerProcess& worker) {
  if (!warm_up_ || !worker.ready || worker.warming || !worker.channel) return;
  worker.warming = worker.channel->send({{"type", "warm_up"}, {"paths", options_.warm_up_paths}});
}

std::optional<nlohmann::json> Supervisor::start() {
  int jobs = std::max(1, options_.jobs);
  workers_.resize(static_cast<size_t>(std::clamp(options_.workers, 1, jobs)));
  slots_.resize(static_cast<size_t>(jobs));
  for (size_t i = 0; i < slots_.size(); ++i) slots_[i].worker = i % workers_.size();
  for (auto& worker : workers_) spawn(worker);
  while (!hello_) {
    if (interrupts_.received()) {
      stop_everything();
      return std::nullopt;
    }
    poll_once(500);
  }
  starting_ = false;
  return hello_;
}

void Supervisor::poll_once(int timeout_ms) {
  std::vector<pollfd> fds;
  std::vector<size_t> owners;
  fds.push_back({interrupts_.fd(), POLLIN, 0});
  owners.push_back(0);
  for (size_t w = 0; w < workers_.size(); ++w) {
    if (!workers_[w].channel) continue;
    fds.push_back({workers_[w].channel->events_fd(), POLLIN, 0});
    owners.push_back(w);
  }
  int ready = ::poll(fds.data(), fds.size(), timeout_ms);
  if (ready <= 0 || interrupts_.received()) return;
  for (size_t i = 1; i < fds.size(); ++i) {
    if (fds[i].revents == 0) continue;
    size_t w = owners[i];
    WorkerChannel& channel = *workers_[w].channel;
    std::vector<WorkerEvent> events;
    size_t malformed_before = channel.malformed_lines();
    bool open = channel.read_events(events);
    size_t malformed_after = channel.malformed_lines();
    if (malformed_after > malformed_before && progress_ != nullptr &&
        stats_.malformed_lines < kMalformedNotes) {
      progress_->note(fmt::format("capmap: ignored a malformed line from worker {}: {}",
                                  channel.pid(), channel.last_problem()));
    }
    stats_.malformed_lines += malformed_after - malformed_before;
    for (auto& event : events) handle_event(w, event);
    if (!open) handle_worker_exit(w);
  }
}

void Supervisor::handle_event(size_t worker, WorkerEvent& event) {
  switch (event.type) {
    case WorkerEventType::kHello:
      return on_hello(worker, event);
    case WorkerEventType::kWarmed:
      return on_warmed(worker, event);
    case WorkerEventType::kError:
      return on_worker_error(event);
    default:
      break;
  }
  // Events of a task no slot of this worker runs any more (it was given up) are stale.
  auto slot_it = std::find_if(slots_.begin(), slots_.end(), [&](const WorkerSlot& s) {
    return s.worker == worker && s.running && s.running->id == event.task;
  });
  if (slot_it == slots_.end()) return;
  switch (event.type) {
    case WorkerEventType::kStarted:
      return on_started(*slot_it->running, event);
    case WorkerEventType::kPath:
      return on_path(*slot_it->running, event);
    case WorkerEventType::kRecord:
      return on_record(*slot_it->running, event);
    case WorkerEventType::kDone:
      return finish_task(*slot_it, Ending{event.signal, event.exit_code, event.log_tail, false,
                                          event.child_kept, event.earlier_tasks});
    default:
      return;
  }
}

void Supervisor::on_hello(size_t worker, WorkerEvent& event) {
  // A Python package from another capmap version would not answer what
  // this engine asks (warm_up), and the run would wait for ever.
  auto protocol = event.body.find("protocol");
  int version =
      protocol != event.body.end() && protocol->is_number_integer() ? protocol->get<int>() : 1;
  if (version != kWorkerProtocolVersion) {
    throw UserError(fmt::format(
        "{} -m capmap.worker speaks worker protocol {}, this capmap engine {}: the capmap "
        "Python package and the capmap binary come from different versions (reinstall "
        "capmap, or set PYTHONPATH to the package that matches)",
        options_.python, version, kWorkerProtocolVersion));
  }
  workers_[worker].ready = true;
  workers_[worker].deaths_before_hello = 0;
  if (!hello_) hello_ = std::move(event.body);
  warm_up(workers_[worker]);  // a worker restarted mid-run warms up like the first
}

void Supervisor::on_warmed(size_t worker, const WorkerEvent& event) {
  workers_[worker].warming = false;
  if (progress_ != nullptr && event.body.contains("seconds") && event.body["seconds"].is_number()) {
    progress_->note(
        fmt::format("capmap: worker {} warmed up the capture paths in {:.1f} s (once per worker)",
                    workers_[worker].channel->pid(), event.body["seconds"].get<double>()));
  }
}

void Supervisor::on_worker_error(const WorkerEvent& event) const {
  if (starting_) throw UserError(event.message);
  // A worker started again mid-run (the last one died) could not load the
  // registry: a file of it was removed or broken while the run went on.
  throw UserError(
      fmt::format("a worker restarted during the run could not load the registry: {}; the records "
                  "committed so far are kept in the store: restore the registry, then run the same "
                  "command again and it resumes where it stopped",
                  event.message));
}

void Supervisor::on_started(RunningTask& running, const WorkerEvent& event) {
  running.child = static_cast<pid_t>(event.pid);
  stats_.fork_latencies.push_back(seconds_between(running.dispatched, Clock::now()));
}

void Supervisor::on_path(RunningTask& running, const WorkerEvent& event) {
  running.path = event.path;
  running.path_started = Clock::now();
}

void Supervisor::on_record(RunningTask& running, const WorkerEvent& event) {
  // The eager reference runs for every task; only a requested path is stored.
  if (!contains(running.task.paths, event.path)) return;
  store_->put_record(run_key_, running.task.case_name, event.path, event.body);
  std::string status = event.body.at("status").get<std::string>();
  running.outcomes.emplace_back(event.path, status);
  ++stats_.records_written;
  progress_->record(status);
}

nlohmann::json Supervisor::engine_record(const RunningTask& running, const Ending& ending,
                                         const std::string& path, bool in_reference) const {
  double seconds = seconds_between(running.path_started, Clock::now());
  std::string where = in_reference ? "the eager reference run" : "the " + path + " path";
  nlohmann::json record = {{"seconds", seconds}};
  switch (running.kill) {
    case KillReason::kTimeout:
      record["status"] = "timeout";
      record["limit_seconds"] = options_.timeout_seconds;
      record["message"] = fmt::format("{} ran past the time limit of {} s and was killed", where,
                                      options_.timeout_seconds);
      break;
    case KillReason::kOom:
      record["status"] = "oom";
      record["rss_bytes"] = running.rss_at_kill;
      record["limit_bytes"] = options_.memory_limit;
      record["message"] = fmt::format("{} used {} of memory, over the limit of {}, and was killed",
                                      where, format_byte_size(running.rss_at_kill),
                                      format_byte_size(options_.memory_limit));
      break;
    case KillReason::kNone: {
      record["status"] = "crashed";
      std::string how;
      if (!ending.signal.empty()) {
        record["signal"] = ending.signal;
        how = "died from " + ending.signal;
      } else {
        record["exit"] = ending.exit_code;
        how = ending.exit_code == 0 ? "ended without sending a record"
                                    : fmt::format("exited with code {}", ending.exit_code);
      }
      record["message"] = fmt::format("the {} process {} during {}",
                                      ending.worker_died ? "worker" : "child", how, where);
      break;
    }
  }
  if (!ending.log_tail.empty()) record["log_tail"] = ending.log_tail;
  return record;
}

std::vector<std::string> Supervisor::unrecorded_paths(const RunningTask& running) {
  std::vector<std::string> unrecorded;
  for (const auto& path : running.task.paths) {
    bool recorded = std::any_of(running.outcomes.begin(), running.outcomes.end(),
                                [&](const auto& o) { return o.first == path; });
    if (!recorded) unrecorded.push_back(path);
  }
  return unrecorded;
}

bool Supervisor::rerun_in_fresh_child(WorkerSlot& slot, const Ending& ending) {
  RunningTask& running = *slot.running;
  // Only a death the case may not own: a crash or running out of memory in a
  // child that ran other tasks first. A timeout costs its limit again, and a
  // fresh child's verdict is final.
  if (running.task.fresh || ending.earlier_tasks == 0 || ending.worker_died ||
      running.kill == KillReason::kTimeout) {
    return false;
  }
  std::vector<std::string> unrecorded = unrecorded_paths(running);
  if (unrecorded.empty()) return false;
  ++stats_.fresh_reruns;
  store_->unmark_dispatched(run_key_, running.task.case_name, unrecorded);
  requeue(Task{running.task.case_name, unrecorded, true});
  slot.running.reset();
  return true;
}

void Supervisor::finish_task(WorkerSlot& slot, const Ending& ending) {
  RunningTask& running = *slot.running;
  // Whatever the case started goes with it (a kept child's worker ended it).
  if (running.child > 0 && !ending.child_kept) signal_process_group(running.child, SIGKILL);
  if (rerun_in_fresh_child(slot, ending)) return;

  std::vector<std::string> remaining = unrecorded_paths(running);
  if (!remaining.empty()) {
    // Dying in the reference run dooms every path (they all need it); dying in
    // a path blames that path; otherwise blame the next one, so every death
    // yields a record and the run always moves on.
    bool in_reference = running.path.empty() || running.path == "eager";
    std::vector<std::string> blamed;
    std::vector<std::string> rest;
    if (in_reference) {
      blamed = remaining;
    } else {
      std::string culprit = contains(remaining, running.path) ? running.path : remaining.front();
      for (const auto& path : remaining) (path == culprit ? blamed : rest).push_back(path);
    }
    for (const auto& path : blamed) {
      auto record = engine_record(running, ending, path, in_reference);
      store_->put_record(run_key_, running.task.case_name, path, record);
      std::string status = record["status"].get<std::string>();
      running.outcomes.emplace_back(path, status);
      ++stats_.records_written;
      progress_->record(status);
    }
    if (!rest.empty()) {
      // The dead child never reached these paths: their dispatch does not
      // count towards "dispatched twice without a record".
      store_->unmark_dispatched(run_key_, running.task.case_name, rest);
      requeue(Task{running.task.case_name, rest, running.task.fresh});
    }
  }
  ++stats_.tasks_finished;
  progress_->task_finished(running.task.case_name, running.outcomes,
                           seconds_between(running.dispatched, Clock::now()));
  slot.running.reset();
}

void Supervisor::requeue(Task task) {
  auto expected = expected_seconds(task, *durations_);
  queue_->push(std::move(task), expected);
}

void Supervisor::give_back(WorkerSlot& slot) {
  RunningTask& running = *slot.running;
  if (running.child > 0) signal_process_group(running.child, SIGKILL);
  std::vector<std::string> unrecorded = unrecorded_paths(running);
  if (!unrecorded.empty()) {
    store_->unmark_dispatched(run_key_, running.task.case_name, unrecorded);
    requeue(Task{running.task.case_name, unrecorded, running.task.fresh});
  }
  slot.running.reset();
}

void Supervisor::handle_worker_exit(size_t index) {
  WorkerProcess& worker = workers_[index];
  pid_t pid = worker.channel->pid();
  worker.channel->close();
  worker.channel.reset();
  signal_process_group(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!worker.ready) {
    std::string what = fmt::format("{} -m capmap.worker {} before loading the registry",
                                   options_.python, describe_wait_status(status));
    if (starting_) throw UserError(what + " (its output is above)");
    if (++worker.deaths_before_hello >= kMaxDeathsBeforeHello) {
      throw UserError(fmt::format("{}, {} times in a row", what, worker.deaths_before_hello));
    }
  }
  // A worker the supervisor killed for one task's sake is that task's fault
  // only; one that died on its own is blamed on every task it held.
  bool killed_for_a_task = std::any_of(slots_.begin(), slots_.end(), [&](const WorkerSlot& s) {
    return s.worker == index && s.running && s.running->kill != KillReason::kNone;
  });
  Ending ending;
  ending.worker_died = true;
  if (WIFSIGNALED(status)) {
    ending.signal = signal_name(WTERMSIG(status));
  } else {
    ending.exit_code = WEXITSTATUS(status);
  }
  for (auto& slot : slots_) {
    if (slot.worker != index || !slot.running) continue;
    if (killed_for_a_task && slot.running->kill == KillReason::kNone) {
      give_back(slot);
    } else {
      finish_task(slot, ending);
    }
  }
  if (queue_ != nullptr) {
    ++stats_.worker_restarts;
    spawn(worker);
  }
}

void Supervisor::dispatch_idle_workers() {
  for (auto& slot : slots_) {
    if (queue_->empty()) return;
    WorkerProcess& worker = workers_[slot.worker];
    if (!worker.channel || !worker.ready || worker.warming || slot.running) continue;
    Task task = *queue_->pop();
    // Marked before it runs: if capmap dies now, the next run knows.
    store_->mark_dispatched(run_key_, task.case_name, task.paths);
    nlohmann::json command = {
        {"type", "task"},         {"task", next_task_id_},
        {"case", task.case_name}, {"paths", task.paths},
        {"threads", 1},           {"reuse", options_.reuse_children && !task.fresh}};
    if (!worker.channel->send(command)) {
      // The worker is going away; poll() will see it and restart it.
      store_->unmark_dispatched(run_key_, task.case_name, task.paths);
      requeue(std::move(task));
      continue;
    }
    RunningTask running;
    running.task = std::move(task);
    running.id = next_task_id_++;
    running.dispatched = running.path_started = Clock::now();
    slot.running = std::move(running);
    ++stats_.tasks_dispatched;
  }
}

void Supervisor::enforce_limits() {
  auto now = Clock::now();
  auto grace = std::chrono::duration<double>(options_.kill_grace_seconds);
  auto limit = std::chrono::duration<double>(options_.timeout_seconds);
  for (auto& slot : slots_) {
    if (!slot.running || worker_pid(slot) == 0) continue;
    RunningTask& running = *slot.running;
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

RunStats Supervisor::run(Scheduler& queue, ResultStore& store, const std::string& run_key,
                         const DurationTable& durations, ProgressDisplay& progress) {
  queue_ = &queue;
  store_ = &store;
  progress_ = &progress;
  durations_ = &durations;
  run_key_ = run_key;
  stats_ = RunStats{};
  auto started = Clock::now();
  size_t capture_tasks = queue.count_if([](const Task& task) {
    return std::any_of(task.paths.begin(), task.paths.end(),
                       [](const std::string& p) { return p != "eager"; });
  });
  warm_up_ = !options_.warm_up_paths.empty() && capture_tasks >= options_.warm_up_min_tasks;
  for (auto& worker : workers_) warm_up(worker);
  for (;;) {
    if (interrupts_.received()) {
      stop_everything();
      stats_.interrupt_exit_code = interrupts_.exit_code();
      break;
    }
    dispatch_idle_workers();
    std::vector<RunningTaskView> running;
    for (const auto& slot : slots_) {
      if (!slot.running) continue;
      const auto& r = *slot.running;
      std::string label = r.task.case_name + (r.path.empty() ? "" : " [" + r.path + "]");
      running.push_back({label, seconds_between(r.dispatched, Clock::now())});
    }
    if (running.empty() && queue.empty()) break;
    progress.refresh(running);
    poll_once(running.empty() ? 500 : static_cast<int>(kRssCheckInterval.count()));
    enforce_limits();
  }
  shut_down_workers();
  stats_.wall_seconds = seconds_between(started, Clock::now());
  queue_ = nullptr;
  return stats_;
}

void Supervisor::stop_everything() {
  for (auto& slot : slots_) {
    if (slot.running) {
      if (slot.running->child > 0) signal_process_group(slot.running->child, SIGKILL);
      if (store_ != nullptr) {
        // Interrupted by the user, not crashed: this dispatch does not count.
        store_->unmark_dispatched(run_key_, slot.running->task.case_name,
                                  unrecorded_paths(*slot.running));
      }
      slot.running.reset();
    }
  }
  for (auto& worker : workers_) {
    if (worker.channel) {
      pid_t pid = worker.channel->pid();
      worker.channel->close();
      worker.channel.reset();
      signal_process_group(pid, SIGKILL);
      while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
      }
    }
  }
}

void Supervisor::shut_down_workers() {
  for (auto& worker : workers_) {
    if (!worker.channel) continue;
    if (!worker.ready) {
      // Still importing: it has nothing to finish, and would only find its
      // channel closed when it says hello.
      pid_t pid = worker.channel->pid();
      worker.channel.reset();
      signal_process_group(pid, SIGKILL);
      while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
      }
      continue;
    }
    worker.channel->send({{"type", "quit"}});
    worker.channel->close();
  }
  // Give each worker a moment to exit on its own, then make sure.
  auto deadline = Clock::now() + std::chrono::seconds(2);
  for (auto& worker : workers_) {
    if (!worker.channel) continue;
    pid_t pid = worker.channel->pid();
    for (;;) {
      pid_t done = waitpid(pid, nullptr, WNOHANG);
      if (done == pid || (done < 0 && errno != EINTR)) break;
      if (Clock::now() > deadline) {
        signal_process_group(pid, SIGKILL);
        waitpid(pid, nullptr, 0);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    worker.channel.reset();
  }
}

}  // namespace capmap

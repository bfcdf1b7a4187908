#include "run/supervisor.h"

#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <thread>

#include "run/process_control.h"

namespace capmap {

namespace {

constexpr size_t kMalformedNotes = 5;

}  // namespace

double Supervisor::seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

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
      kill_and_reap(pid);
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
      running.push_back({label, seconds_since(r.dispatched)});
    }
    if (running.empty() && queue.empty()) break;
    progress.refresh(running);
    poll_once(running.empty() ? 500 : static_cast<int>(kRssCheckInterval.count()));
    enforce_limits();
  }
  shut_down_workers();
  stats_.wall_seconds = seconds_since(started);
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
      kill_and_reap(pid);
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
      kill_and_reap(pid);
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
        kill_and_reap(pid);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    worker.channel.reset();
  }
}

}  // namespace capmap

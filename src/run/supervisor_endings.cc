// How a task ends when its child or worker dies, is killed or runs out of
// time or memory: the records the supervisor writes in the child's place, and
// the tasks it runs again.
#include <fmt/format.h>
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <cerrno>

#include "common/user_error.h"
#include "run/byte_size.h"
#include "run/process_control.h"
#include "run/supervisor.h"

namespace capmap {

namespace {

constexpr int kMaxDeathsBeforeHello = 3;

std::string describe_wait_status(int status) {
  if (WIFSIGNALED(status)) return "was killed by " + signal_name(WTERMSIG(status));
  return fmt::format("exited with code {}", WEXITSTATUS(status));
}

}  // namespace

nlohmann::json Supervisor::engine_record(const RunningTask& running, const Ending& ending,
                                         const std::string& path, bool in_reference) const {
  double seconds = seconds_since(running.path_started);
  std::string where = in_reference ? "the eager reference run" : "the " + path + " path";
  nlohmann::json record = {{"seconds", seconds}};
  switch (running.kill) {
    case KillReason::kTimeout: {
      const double limit = time_limit(running);
      record["status"] = "timeout";
      record["limit_seconds"] = limit;
      record["message"] =
          fmt::format("{} ran past the time limit of {:.0f} s and was killed", where, limit);
      break;
    }
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
      bool reached = std::find(remaining.begin(), remaining.end(), running.path) != remaining.end();
      std::string culprit = reached ? running.path : remaining.front();
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
                           seconds_since(running.dispatched), running.eager_failure);
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

}  // namespace capmap

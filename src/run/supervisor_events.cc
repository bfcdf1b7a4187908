// The supervisor's event handlers: one per event a worker sends (protocol in
// docs/reference/worker-protocol.md), the worker's own first, then a task's.
#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "common/user_error.h"
#include "run/supervisor.h"

namespace capmap {

namespace {

// The worker's PROTOCOL_VERSION (python/capmap/worker/protocol.py) this engine speaks.
constexpr int kWorkerProtocolVersion = 2;

// "TypeError: first line of the message", short enough for one line of the log.
std::string failure_line(const nlohmann::json& record) {
  auto text = [&](const char* key) {
    auto it = record.find(key);
    return it != record.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  std::string message = text("message");
  message = message.substr(0, message.find('\n'));
  constexpr size_t kWidest = 200;
  if (message.size() > kWidest) message = message.substr(0, kWidest - 3) + "...";
  std::string type = text("error_type");
  if (type.empty()) return message.empty() ? "failed, with no message" : message;
  return message.empty() ? type : type + ": " + message;
}

}  // namespace

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
  stats_.fork_latencies.push_back(seconds_since(running.dispatched));
}

void Supervisor::on_path(RunningTask& running, const WorkerEvent& event) {
  running.path = event.path;
  running.path_started = Clock::now();
}

void Supervisor::on_record(RunningTask& running, const WorkerEvent& event) {
  // The eager reference runs for every task; only a requested path is stored.
  const auto& asked = running.task.paths;
  if (std::find(asked.begin(), asked.end(), event.path) == asked.end()) return;
  store_->put_record(run_key_, running.task.case_name, event.path, event.body);
  std::string status = event.body.at("status").get<std::string>();
  running.outcomes.emplace_back(event.path, status);
  if (event.path == "eager" && status == "fail") running.eager_failure = failure_line(event.body);
  ++stats_.records_written;
  progress_->record(status);
}

}  // namespace capmap

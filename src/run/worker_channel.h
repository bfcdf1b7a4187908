#pragma once
// WorkerChannel: the supervisor's end of one worker's two pipes. Reads whole
// lines of events, counts the lines that are not valid events (a case may
// scribble on the wrong descriptor; that must never stop the run), and writes
// commands.
#include <sys/types.h>

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "run/line_splitter.h"
#include "run/process_control.h"
#include "run/worker_event.h"

namespace capmap {

class WorkerChannel {
 public:
  explicit WorkerChannel(SpawnedWorker worker);
  WorkerChannel(WorkerChannel&& other) noexcept;
  WorkerChannel& operator=(WorkerChannel&& other) noexcept;
  WorkerChannel(const WorkerChannel&) = delete;
  WorkerChannel& operator=(const WorkerChannel&) = delete;
  ~WorkerChannel();

  // Reads what is available without blocking and appends the parsed events.
  // Returns false once the worker closed its end (it exited or died).
  bool read_events(std::vector<WorkerEvent>& events);

  // Writes one command line; false when the worker is gone.
  bool send(const nlohmann::json& command);

  pid_t pid() const { return pid_; }
  int events_fd() const { return events_fd_; }
  size_t malformed_lines() const { return malformed_ + splitter_.oversized_lines(); }
  // The last malformed line's problem, for the report.
  const std::string& last_problem() const { return last_problem_; }

  // Closes both pipes; the worker sees end-of-file on fd 3.
  void close();

 private:
  pid_t pid_ = -1;
  int commands_fd_ = -1;
  int events_fd_ = -1;
  LineSplitter splitter_;
  size_t malformed_ = 0;
  std::string last_problem_;
};

}  // namespace capmap

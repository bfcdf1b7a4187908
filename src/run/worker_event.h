#pragma once
// The messages a worker sends on fd 4 (docs/reference/worker-protocol.md),
// checked once here so the supervisor only ever sees well-formed events.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <variant>

namespace capmap {

enum class WorkerEventType { kHello, kError, kWarmed, kStarted, kPath, kRecord, kDone };

struct WorkerEvent {
  WorkerEventType type = WorkerEventType::kHello;
  std::int64_t task = -1;   // started, path, record, done
  std::int64_t pid = 0;     // hello (worker), started (child)
  std::string path;         // path, record
  std::string message;      // error
  std::string signal;       // done: "SIGSEGV" when the child died by a signal
  int exit_code = 0;        // done: exit status when it did not
  std::string log_tail;     // done
  bool child_kept = false;  // done: the child lives on, idle, for a later task
  int earlier_tasks = 0;    // done: tasks the child ran before this one
  nlohmann::json body;      // the whole message (hello: inventory; record: RECORD)
};

// A line that is not a valid event: why, for the count of malformed lines.
struct MalformedLine {
  std::string problem;
};

using ParsedLine = std::variant<WorkerEvent, MalformedLine>;

// Parses one line (without its newline). Never throws.
ParsedLine parse_worker_line(std::string_view line);

}  // namespace capmap

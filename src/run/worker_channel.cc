#include "run/worker_channel.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <utility>
#include <variant>

namespace capmap {

WorkerChannel::WorkerChannel(SpawnedWorker worker)
    : pid_(worker.pid), commands_fd_(worker.commands_fd), events_fd_(worker.events_fd) {
  fcntl(events_fd_, F_SETFL, fcntl(events_fd_, F_GETFL) | O_NONBLOCK);
}

WorkerChannel::WorkerChannel(WorkerChannel&& other) noexcept { *this = std::move(other); }

WorkerChannel& WorkerChannel::operator=(WorkerChannel&& other) noexcept {
  if (this != &other) {
    close();
    pid_ = std::exchange(other.pid_, -1);
    commands_fd_ = std::exchange(other.commands_fd_, -1);
    events_fd_ = std::exchange(other.events_fd_, -1);
    splitter_ = std::move(other.splitter_);
    malformed_ = other.malformed_;
    last_problem_ = std::move(other.last_problem_);
  }
  return *this;
}

WorkerChannel::~WorkerChannel() { close(); }

void WorkerChannel::close() {
  if (commands_fd_ >= 0) ::close(commands_fd_);
  if (events_fd_ >= 0) ::close(events_fd_);
  commands_fd_ = events_fd_ = -1;
}

bool WorkerChannel::read_events(std::vector<WorkerEvent>& events) {
  if (events_fd_ < 0) return false;
  char buffer[65536];
  std::vector<std::string> lines;
  bool open = true;
  for (;;) {
    ssize_t n = ::read(events_fd_, buffer, sizeof buffer);
    if (n > 0) {
      splitter_.feed(std::string_view(buffer, static_cast<size_t>(n)), lines);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    open = false;  // end of file or a broken pipe
    break;
  }
  for (const auto& line : lines) {
    if (line.empty()) continue;
    auto parsed = parse_worker_line(line);
    if (auto* event = std::get_if<WorkerEvent>(&parsed)) {
      events.push_back(std::move(*event));
    } else {
      ++malformed_;
      last_problem_ = std::get<MalformedLine>(parsed).problem;
    }
  }
  return open;
}

bool WorkerChannel::send(const nlohmann::json& command) {
  if (commands_fd_ < 0) return false;
  std::string line = command.dump() + "\n";
  const char* p = line.data();
  size_t left = line.size();
  while (left > 0) {
    ssize_t n = ::write(commands_fd_, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;  // EPIPE: the worker is gone (SIGPIPE is ignored)
    p += n;
    left -= static_cast<size_t>(n);
  }
  return true;
}

}  // namespace capmap

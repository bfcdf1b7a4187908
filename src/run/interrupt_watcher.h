#pragma once
// Signal handling in one place: SIGINT and SIGTERM become a readable file
// descriptor the supervisor polls, so an interrupt is handled between events
// (children killed, records kept) rather than inside a signal handler.
namespace capmap {

class InterruptWatcher {
 public:
  // Installs the handlers (and ignores SIGPIPE: a dead worker's pipe must
  // not kill the supervisor). Only one watcher may exist at a time.
  InterruptWatcher();
  ~InterruptWatcher();
  InterruptWatcher(const InterruptWatcher&) = delete;
  InterruptWatcher& operator=(const InterruptWatcher&) = delete;

  // Readable once a signal arrived.
  int fd() const;
  // The signal received, or 0.
  int received() const;
  // The exit code for the received signal (130 for SIGINT).
  int exit_code() const;
};

}  // namespace capmap

#pragma once
// ReproWriter: `capmap run --repro` writes the script of each failing cell
// while the run goes on, so a run that is killed half-way still leaves the
// scripts of the failures it recorded. The scripts are written by one Python
// process (`python -m capmap.repro --all --follow`) at the lowest CPU
// priority, which reads the failing records from the store itself (WAL: its
// reads never block the supervisor). The supervisor tells it nothing while
// the run goes on, so the scripts cost the supervisor no CPU and the run's
// children lose no CPU to them. Its stdin is a pipe: closing it says the run
// is over, and the writer then writes what is left and exits. SIGTERM stops
// it at once; each script is written aside and renamed into place, so what it
// wrote stays whole.
#include <sys/types.h>

#include <filesystem>
#include <string>

#include "run/interrupt_watcher.h"

namespace capmap {

class ReproWriter {
 public:
  // Starts the writer for the failing records of `run_key` in `store`; the
  // scripts go to repro/ beside the store. Without Python (or a fork) it
  // says so on stderr and the run goes on without scripts.
  ReproWriter(const std::string& python, const std::filesystem::path& store,
              const std::string& run_key);
  ~ReproWriter();  // stops the writer if it still runs
  ReproWriter(const ReproWriter&) = delete;
  ReproWriter& operator=(const ReproWriter&) = delete;

  // Tells the writer that the run is over: it reads the store once more,
  // writes the scripts still missing and exits. Returns at once.
  void run_over();

  // run_over(), then waits for the writer. Returns its exit status, or -1
  // when an interrupt came first (the writer is then stopped; the scripts
  // written so far stay).
  int finish(const InterruptWatcher& interrupts);

  // Ends the writer now (SIGTERM, then SIGKILL after a grace period).
  void stop();

 private:
  // Reaps the writer if it has exited; true when it has (status in `status_`).
  bool reaped(int options);

  pid_t pid_ = -1;
  int control_fd_ = -1;  // our end of the writer's stdin
  int status_ = -1;
};

}  // namespace capmap

#include "run/process_control.h"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "common/child_process.h"
#include "common/user_error.h"

namespace capmap {

SpawnedWorker spawn_worker(const std::vector<std::string>& argv) {
  int commands[2];
  int events[2];
  if (pipe2(commands, O_CLOEXEC) != 0) throw UserError("cannot create a pipe for a worker");
  if (pipe2(events, O_CLOEXEC) != 0) {
    close(commands[0]);
    close(commands[1]);
    throw UserError("cannot create a pipe for a worker");
  }
  auto args = exec_argv(argv);
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    for (int fd : {commands[0], commands[1], events[0], events[1]}) close(fd);
    throw UserError(fmt::format("cannot start a worker: {}", std::strerror(errno)));
  }
  if (pid == 0) {
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(1);  // The supervisor died before prctl.
    reset_signals_in_child();
    // Move the pipe ends out of the way first, so dup2 onto 3 and 4 never
    // sees source == target (which would keep close-on-exec set).
    int in = fcntl(commands[0], F_DUPFD, 10);
    int out = fcntl(events[1], F_DUPFD, 10);
    if (in < 0 || out < 0 || dup2(in, 3) < 0 || dup2(out, 4) < 0) _exit(126);
    close_range(5, ~0U, 0);
    exec_or_die(args);
  }
  // Also set it here: whichever runs first, the group exists before we signal it.
  setpgid(pid, pid);
  close(commands[0]);
  close(events[1]);
  return SpawnedWorker{pid, commands[1], events[0]};
}

void signal_process_group(pid_t pgid, int sig) {
  if (pgid > 1) kill(-pgid, sig);
}

void kill_and_reap(pid_t pgid) {
  if (pgid <= 1) return;
  signal_process_group(pgid, SIGKILL);
  while (waitpid(pgid, nullptr, 0) < 0 && errno == EINTR) {
  }
}

std::map<pid_t, std::uint64_t> process_group_rss(const std::set<pid_t>& pgids) {
  std::map<pid_t, std::uint64_t> rss;
  if (pgids.empty()) return rss;
  static const long page_size = sysconf(_SC_PAGESIZE);
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return rss;
  char path[300];
  char buffer[1024];
  while (dirent* entry = readdir(proc)) {
    if (entry->d_name[0] < '1' || entry->d_name[0] > '9') continue;
    std::snprintf(path, sizeof path, "/proc/%s/stat", entry->d_name);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    ssize_t n = read(fd, buffer, sizeof buffer - 1);
    close(fd);
    if (n <= 0) continue;
    buffer[n] = '\0';
    // The command name (field 2) may hold spaces and parentheses: parse from
    // the last ')'. After it: state ppid pgrp ... and rss is field 24.
    char* p = std::strrchr(buffer, ')');
    if (p == nullptr) continue;
    char state = 0;
    long ppid = 0;
    long pgrp = 0;
    if (std::sscanf(p + 1, " %c %ld %ld", &state, &ppid, &pgrp) != 3) continue;
    if (!pgids.count(static_cast<pid_t>(pgrp))) continue;
    // Fields after the name are separated by single spaces; p + 2 starts field 3.
    char* cursor = p + 2;
    for (int field = 3; field < 24 && cursor != nullptr; ++field) {
      cursor = std::strchr(cursor, ' ');
      if (cursor != nullptr) ++cursor;
    }
    long pages = cursor != nullptr ? std::strtol(cursor, nullptr, 10) : 0;
    rss[static_cast<pid_t>(pgrp)] +=
        static_cast<std::uint64_t>(pages > 0 ? pages : 0) * static_cast<std::uint64_t>(page_size);
  }
  closedir(proc);
  return rss;
}

namespace {

// The rss field (24) of /proc/PID/stat in bytes; 0 when the process is gone.
std::uint64_t stat_rss(pid_t pid) {
  static const long page_size = sysconf(_SC_PAGESIZE);
  char path[64];
  char buffer[1024];
  std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  ssize_t n = read(fd, buffer, sizeof buffer - 1);
  close(fd);
  if (n <= 0) return 0;
  buffer[n] = '\0';
  char* cursor = std::strrchr(buffer, ')');
  if (cursor == nullptr) return 0;
  ++cursor;  // fields after the name are separated by single spaces: field 3 starts here + 1
  for (int field = 2; field < 24 && cursor != nullptr; ++field) {
    cursor = std::strchr(cursor, ' ');
    if (cursor != nullptr) ++cursor;
  }
  long pages = cursor != nullptr ? std::strtol(cursor, nullptr, 10) : 0;
  return static_cast<std::uint64_t>(pages > 0 ? pages : 0) * static_cast<std::uint64_t>(page_size);
}

}  // namespace

std::uint64_t process_tree_rss(pid_t root) {
  std::uint64_t total = 0;
  std::vector<pid_t> pending = {root};
  char path[96];
  char buffer[4096];
  // A bound on the walk, in case pids are reused under it while it reads.
  for (size_t visited = 0; !pending.empty() && visited < 4096; ++visited) {
    pid_t pid = pending.back();
    pending.pop_back();
    total += stat_rss(pid);
    std::snprintf(path, sizeof path, "/proc/%d/task/%d/children", static_cast<int>(pid),
                  static_cast<int>(pid));
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    ssize_t n = read(fd, buffer, sizeof buffer - 1);
    close(fd);
    if (n <= 0) continue;
    buffer[n] = '\0';
    char* cursor = buffer;
    char* end = nullptr;
    for (long child = std::strtol(cursor, &end, 10); end != cursor;
         child = std::strtol(cursor, &end, 10)) {
      if (child > 0) pending.push_back(static_cast<pid_t>(child));
      cursor = end;
    }
  }
  return total;
}

std::string signal_name(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  if (abbrev == nullptr) return fmt::format("signal {}", sig);
  return std::string("SIG") + abbrev;
}

}  // namespace capmap

#pragma once
// Starting and ending processes: workers get their own process group and die
// with the supervisor (parent-death signal); a task's process group is ended
// whole, so nothing a case started outlives its task.
#include <sys/types.h>

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace capmap {

struct SpawnedWorker {
  pid_t pid = -1;        // also its process group id
  int commands_fd = -1;  // we write; the worker reads it as fd 3
  int events_fd = -1;    // we read; the worker writes it as fd 4
};

// Starts argv[0] (looked up on PATH) with the two channel pipes on fds 3 and 4,
// in a new process group, killed when this process dies. stdout and stderr
// are inherited. Throws UserError when the process cannot be created.
SpawnedWorker spawn_worker(const std::vector<std::string>& argv);

// Sends a signal to a whole process group; a group that is already gone is fine.
void signal_process_group(pid_t pgid, int sig);

// Kills a worker's whole process group and waits for the worker itself (its
// group leader, `pgid`), so that no zombie and no child of it is left.
void kill_and_reap(pid_t pgid);

// Resident memory summed over every process of each group, from one pass over
// /proc. Groups with no live process are absent.
std::map<pid_t, std::uint64_t> process_group_rss(const std::set<pid_t>& pgids);

// Resident memory summed over `root` and its descendants, found through
// /proc/PID/task/TID/children: a few reads instead of a pass over all of
// /proc, for frequent checks. Misses processes that left the tree (orphans),
// which process_group_rss still sees. 0 when `root` is gone.
std::uint64_t process_tree_rss(pid_t root);

// "SIGSEGV" for SIGSEGV; "signal 77" for numbers without a name.
std::string signal_name(int sig);

}  // namespace capmap

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "run/process_control.h"

namespace capmap {
namespace {

constexpr std::uint64_t kChildBytes = 64ull << 20;

// Forks a child that forks a grandchild; the grandchild touches kChildBytes and
// sleeps. Returns the child's pid; `ready` is readable once the memory is resident.
pid_t start_tree(int& ready) {
  int fds[2];
  if (pipe(fds) != 0) return -1;
  pid_t child = fork();
  if (child == 0) {
    close(fds[0]);
    setpgid(0, 0);
    if (fork() == 0) {
      auto* block = static_cast<char*>(std::malloc(kChildBytes));
      std::memset(block, 'r', kChildBytes);
      // Sending a byte of the block keeps the compiler from eliding it.
      (void)!write(fds[1], block + kChildBytes - 1, 1);
      pause();
      _exit(0);
    }
    pause();
    _exit(0);
  }
  close(fds[1]);
  ready = fds[0];
  return child;
}

TEST(ProcessTreeRss, CountsGrandchildrenAndAgreesWithTheGroupScan) {
  int ready = -1;
  pid_t child = start_tree(ready);
  ASSERT_GT(child, 0);
  char byte = 0;
  ASSERT_EQ(read(ready, &byte, 1), 1);
  close(ready);
  setpgid(child, child);  // may already be done by the child; either way pgid = child

  std::uint64_t tree = process_tree_rss(child);
  auto groups = process_group_rss({child});
  EXPECT_GE(tree, kChildBytes);
  ASSERT_EQ(groups.count(child), 1u);
  // Same processes, read a moment apart: the two sums are close.
  double ratio = static_cast<double>(tree) / static_cast<double>(groups[child]);
  EXPECT_GT(ratio, 0.9);
  EXPECT_LT(ratio, 1.1);

  signal_process_group(child, SIGKILL);
  waitpid(child, nullptr, 0);
  EXPECT_EQ(process_tree_rss(child), 0u);
}

TEST(ProcessTreeRss, IsZeroForAProcessThatDoesNotExist) {
  EXPECT_EQ(process_tree_rss(999999999), 0u);
}

}  // namespace
}  // namespace capmap

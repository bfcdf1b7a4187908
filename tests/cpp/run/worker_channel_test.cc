#include "run/worker_channel.h"

#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "run/process_control.h"

namespace capmap {
namespace {

const std::string kFakeWorker =
    std::string(CAPMAP_SOURCE_DIR) + "/tests/cpp/run/fake_channel_worker.py";

// Reads events until the worker closes its end or `count` events arrived.
std::vector<WorkerEvent> read_until(WorkerChannel& channel, size_t count, bool& open) {
  std::vector<WorkerEvent> events;
  open = true;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (open && events.size() < count && std::chrono::steady_clock::now() < deadline) {
    pollfd fd{channel.events_fd(), POLLIN, 0};
    ::poll(&fd, 1, 200);
    open = channel.read_events(events);
  }
  return events;
}

// True when the process no longer runs (absent, or a zombie nobody reaped yet).
bool process_gone(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(stat, text)) return true;
  auto paren = text.rfind(')');
  return paren != std::string::npos && paren + 2 < text.size() && text[paren + 2] == 'Z';
}

int wait_exit(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

TEST(WorkerChannel, CountsMalformedLinesAndKeepsTheGoodOnes) {
  WorkerChannel channel(spawn_worker({"python3", kFakeWorker, "garbage"}));
  bool open = true;
  auto events = read_until(channel, 100, open);
  EXPECT_FALSE(open);
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].type, WorkerEventType::kHello);
  EXPECT_EQ(events[0].pid, channel.pid());
  EXPECT_EQ(events[1].type, WorkerEventType::kPath);
  EXPECT_EQ(events[1].path.size(), 3u << 20);
  EXPECT_EQ(events[2].type, WorkerEventType::kDone);
  // "not json at all" and the record without a record object; the final
  // unterminated line never became a line.
  EXPECT_EQ(channel.malformed_lines(), 2u);
  EXPECT_NE(channel.last_problem().find("record"), std::string::npos);
  EXPECT_EQ(wait_exit(channel.pid()), 0);
}

TEST(WorkerChannel, CommandsReachTheWorkerOnFd3) {
  // As in the supervisor: writing to a gone worker must fail, not kill us.
  signal(SIGPIPE, SIG_IGN);
  WorkerChannel channel(spawn_worker({"python3", kFakeWorker, "echo"}));
  ASSERT_TRUE(channel.send({{"type", "task"}, {"task", 41}, {"case", "a"}}));
  ASSERT_TRUE(channel.send({{"type", "task"}, {"task", 42}, {"case", "b"}}));
  bool open = true;
  auto events = read_until(channel, 2, open);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].task, 41);
  EXPECT_EQ(events[1].task, 42);
  // The worker runs in its own process group.
  EXPECT_EQ(getpgid(channel.pid()), channel.pid());
  ASSERT_TRUE(channel.send({{"type", "quit"}}));
  EXPECT_EQ(wait_exit(channel.pid()), 0);
  std::vector<WorkerEvent> rest;
  EXPECT_FALSE(channel.read_events(rest));
  EXPECT_FALSE(channel.send({{"type", "quit"}}));  // a gone worker is not an error
}

TEST(ProcessControl, MeasuresAndEndsAWholeProcessGroup) {
  WorkerChannel channel(spawn_worker({"python3", kFakeWorker, "memory"}));
  bool open = true;
  auto events = read_until(channel, 1, open);
  ASSERT_EQ(events.size(), 1u);
  pid_t grandchild = static_cast<pid_t>(events[0].pid);
  EXPECT_EQ(getpgid(grandchild), channel.pid());
  auto rss = process_group_rss({channel.pid()});
  ASSERT_TRUE(rss.count(channel.pid()));
  EXPECT_GT(rss[channel.pid()], 200ull << 20);
  EXPECT_LT(rss[channel.pid()], 1ull << 30);
  EXPECT_TRUE(process_group_rss({999999}).empty());

  signal_process_group(channel.pid(), SIGKILL);
  EXPECT_EQ(wait_exit(channel.pid()), 128 + SIGKILL);
  // The grandchild went with the group (it is reaped by init; allow a moment).
  bool gone = false;
  for (int i = 0; i < 100 && !gone; ++i) {
    gone = process_gone(grandchild);
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_TRUE(gone);
}

TEST(ProcessControl, NamesSignals) {
  EXPECT_EQ(signal_name(SIGSEGV), "SIGSEGV");
  EXPECT_EQ(signal_name(SIGKILL), "SIGKILL");
  EXPECT_EQ(signal_name(SIGABRT), "SIGABRT");
}

}  // namespace
}  // namespace capmap

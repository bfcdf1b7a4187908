#include "run/interrupt_watcher.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>

namespace capmap {

namespace {

int g_pipe[2] = {-1, -1};
std::atomic<int> g_signal{0};

void on_signal(int sig) {
  g_signal.store(sig);
  char byte = 1;
  // Nothing to do if the pipe is full: the supervisor is already woken.
  [[maybe_unused]] ssize_t n = write(g_pipe[1], &byte, 1);
}

}  // namespace

InterruptWatcher::InterruptWatcher() {
  g_signal.store(0);
  if (pipe2(g_pipe, O_CLOEXEC | O_NONBLOCK) != 0) g_pipe[0] = g_pipe[1] = -1;
  struct sigaction action = {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  signal(SIGPIPE, SIG_IGN);
}

InterruptWatcher::~InterruptWatcher() {
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  if (g_pipe[0] >= 0) close(g_pipe[0]);
  if (g_pipe[1] >= 0) close(g_pipe[1]);
  g_pipe[0] = g_pipe[1] = -1;
}

int InterruptWatcher::fd() const { return g_pipe[0]; }

int InterruptWatcher::received() const { return g_signal.load(); }

int InterruptWatcher::exit_code() const {
  int sig = g_signal.load();
  return sig == 0 ? 0 : 128 + sig;
}

}  // namespace capmap

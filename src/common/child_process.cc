#include "common/child_process.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "common/user_error.h"

namespace capmap {

std::vector<char*> exec_argv(const std::vector<std::string>& argv) {
  std::vector<char*> out;
  for (const auto& a : argv) out.push_back(const_cast<char*>(a.c_str()));
  out.push_back(nullptr);
  return out;
}

void reset_signals_in_child() {
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  for (int sig : {SIGPIPE, SIGINT, SIGTERM, SIGCHLD}) ::signal(sig, SIG_DFL);
}

void exec_or_die(const std::vector<char*>& argv) {
  execvp(argv[0], argv.data());
  std::fprintf(stderr, "capmap: cannot run %s: %s\n", argv[0], std::strerror(errno));
  _exit(127);
}

std::string run_and_capture(const std::vector<std::string>& argv, int& exit_code,
                            bool drop_stderr) {
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) throw UserError("cannot create a pipe");
  auto args = exec_argv(argv);
  pid_t pid = fork();
  if (pid < 0) throw UserError(fmt::format("cannot start {}: {}", argv[0], std::strerror(errno)));
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    reset_signals_in_child();
    if (dup2(out[1], 1) < 0) _exit(126);
    if (drop_stderr) {
      int null = open("/dev/null", O_WRONLY);
      if (null < 0 || dup2(null, 2) < 0) _exit(126);
    }
    exec_or_die(args);
  }
  close(out[1]);
  std::string captured;
  char buffer[65536];
  for (;;) {
    ssize_t n = read(out[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    captured.append(buffer, static_cast<size_t>(n));
  }
  close(out[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return captured;
}

}  // namespace capmap

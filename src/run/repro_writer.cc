#include "run/repro_writer.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

extern char** environ;

namespace capmap {

namespace {

constexpr int kLowestPriority = 19;
constexpr int kPollMs = 100;
constexpr auto kStopGrace = std::chrono::seconds(3);

// The writer's environment: this one, with one compute thread for torch.
std::vector<std::string> writer_environment() {
  std::vector<std::string> env;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    if (std::strncmp(*entry, "OMP_NUM_THREADS=", 16) != 0) env.emplace_back(*entry);
  }
  env.emplace_back("OMP_NUM_THREADS=1");
  return env;
}

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

int exit_status(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + WTERMSIG(status);
}

}  // namespace

ReproWriter::ReproWriter(const std::string& python, const std::filesystem::path& store,
                         const std::string& run_key) {
  std::vector<std::string> argv = {python,    "-m",           "capmap.repro", "--all", "--follow",
                                   "--store", store.string(), "--run-key",    run_key};
  auto env = writer_environment();
  auto c_argv = c_strings(argv);
  auto c_env = c_strings(env);
  int control[2];
  if (pipe2(control, O_CLOEXEC) != 0) {
    std::fprintf(stderr, "capmap: --repro: cannot start the script writer: %s\n",
                 std::strerror(errno));
    return;
  }
  std::fflush(stdout);
  std::fflush(stderr);
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    std::fprintf(stderr, "capmap: --repro: cannot start the script writer: %s\n",
                 std::strerror(errno));
    close(control[0]);
    close(control[1]);
    return;
  }
  if (pid == 0) {
    // Its own process group: Ctrl-C reaches the supervisor, which stops it.
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) _exit(1);  // The supervisor died before prctl.
    setpriority(PRIO_PROCESS, 0, kLowestPriority);
    // stdout joins stderr: `capmap run`'s stdout holds only its table.
    if (dup2(control[0], STDIN_FILENO) < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) _exit(126);
    close_range(3, ~0U, 0);
    execvpe(c_argv[0], c_argv.data(), c_env.data());
    std::fprintf(stderr, "capmap: cannot run %s: %s\n", c_argv[0], std::strerror(errno));
    _exit(127);
  }
  setpgid(pid, pid);
  close(control[0]);
  pid_ = pid;
  control_fd_ = control[1];
}

ReproWriter::~ReproWriter() { stop(); }

bool ReproWriter::reaped(int options) {
  if (pid_ < 0) return true;
  int status = 0;
  pid_t done = waitpid(pid_, &status, options);
  while (done < 0 && errno == EINTR) done = waitpid(pid_, &status, options);
  if (done == 0) return false;
  status_ = done == pid_ ? exit_status(status) : -1;
  pid_ = -1;
  return true;
}

void ReproWriter::run_over() {
  if (control_fd_ >= 0) close(control_fd_);
  control_fd_ = -1;
}

int ReproWriter::finish(const InterruptWatcher& interrupts) {
  run_over();
  while (!reaped(WNOHANG)) {
    if (interrupts.received()) {
      stop();
      return -1;
    }
    pollfd wake = {interrupts.fd(), POLLIN, 0};
    poll(&wake, 1, kPollMs);
  }
  return status_;
}

void ReproWriter::stop() {
  run_over();
  if (pid_ < 0) return;
  kill(-pid_, SIGTERM);
  auto deadline = std::chrono::steady_clock::now() + kStopGrace;
  while (!reaped(WNOHANG)) {
    if (std::chrono::steady_clock::now() >= deadline) {
      kill(-pid_, SIGKILL);
      reaped(0);
      return;
    }
    poll(nullptr, 0, 20);
  }
}

}  // namespace capmap

#include "cli/python_module.h"

#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>

#include "common/user_error.h"
#include "run/line_splitter.h"
#include "run/python_locator.h"

namespace capmap {

namespace {

constexpr int kResultsFd = 3;

int wait_for(pid_t pid, const std::string& what) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR)
      throw UserError(fmt::format("waiting for {}: {}", what, std::strerror(errno)));
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + WTERMSIG(status);
}

}  // namespace

int run_python_module(const std::vector<std::string>& module_and_args,
                      const std::function<void(const std::string&)>& on_result) {
  std::vector<std::string> argv = {locate_python(), "-m"};
  argv.insert(argv.end(), module_and_args.begin(), module_and_args.end());
  const std::string what = fmt::format("{} -m {}", argv[0], module_and_args.at(0));
  std::vector<char*> args;
  for (auto& a : argv) args.push_back(a.data());
  args.push_back(nullptr);

  int results[2] = {-1, -1};
  if (on_result && ::pipe(results) != 0) {
    throw UserError(fmt::format("cannot start {}: pipe: {}", what, std::strerror(errno)));
  }
  std::fflush(stdout);
  std::fflush(stderr);
  pid_t pid = ::fork();
  if (pid < 0) throw UserError(fmt::format("cannot start {}: {}", what, std::strerror(errno)));
  if (pid == 0) {
    if (on_result) {
      ::close(results[0]);
      if (results[1] != kResultsFd) {
        ::dup2(results[1], kResultsFd);
        ::close(results[1]);
      }
    }
    ::execvp(args[0], args.data());
    // Only reached when exec failed; 127 is the shell's "command not found".
    std::fprintf(stderr, "capmap: cannot run %s: %s\n", args[0], std::strerror(errno));
    ::_exit(127);
  }
  if (!on_result) return wait_for(pid, what);

  ::close(results[1]);
  LineSplitter splitter;
  std::vector<std::string> lines;
  char buffer[1 << 16];
  try {
    for (;;) {
      ssize_t n = ::read(results[0], buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      splitter.feed(std::string_view(buffer, static_cast<size_t>(n)), lines);
      for (const auto& line : lines) on_result(line);
      lines.clear();
    }
  } catch (...) {
    // A result this side cannot keep ends the child too: nothing runs on unrecorded.
    ::close(results[0]);
    ::kill(pid, SIGTERM);
    wait_for(pid, what);
    throw;
  }
  ::close(results[0]);
  return wait_for(pid, what);
}

}  // namespace capmap

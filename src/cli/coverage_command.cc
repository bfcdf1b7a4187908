// capmap coverage: how much of the probed library's public API the registry covers.
// The walk over the library needs Python (it imports the library), so the command
// runs `PYTHON -m capmap.coverage` and passes its output and exit code through.
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "common/user_error.h"
#include "run/python_locator.h"

namespace capmap {

namespace {

struct CoverageCommandOptions {
  std::vector<std::string> registries;
  double fail_under = -1;  // negative: no threshold
  bool json = false;
};

// Runs argv with inherited stdio and returns its exit status (128 + signal when killed).
int run_inheriting_stdio(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = ::fork();
  if (pid < 0)
    throw UserError(fmt::format("coverage: cannot start {}: {}", argv[0], std::strerror(errno)));
  if (pid == 0) {
    ::execvp(args[0], args.data());
    // Only reached when exec failed; 127 is the shell's "command not found".
    std::fprintf(stderr, "capmap: coverage: cannot run %s: %s\n", args[0], std::strerror(errno));
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR)
      throw UserError(fmt::format("coverage: waiting for {}: {}", argv[0], std::strerror(errno)));
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + WTERMSIG(status);
}

}  // namespace

void add_coverage_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<CoverageCommandOptions>();
  auto* cmd = app.add_subcommand(
      "coverage",
      "Report which public callables and methods of the probed library have no case and no "
      "exclusion");
  cmd->add_option("registries", options->registries,
                  "Registry files, folders or modules (default: the Kornia survey)");
  cmd->add_option("--fail-under", options->fail_under,
                  "Exit 1 when either figure (names, methods) is below PERCENT")
      ->check(CLI::Range(0.0, 100.0))
      ->type_name("PERCENT");
  cmd->add_flag("--json", options->json, "Print the report as JSON");
  cmd->callback([options, &exit_code] {
    std::vector<std::string> argv = {locate_python(), "-m", "capmap.coverage"};
    argv.insert(argv.end(), options->registries.begin(), options->registries.end());
    if (options->fail_under >= 0) {
      argv.push_back("--fail-under");
      argv.push_back(fmt::format("{}", options->fail_under));
    }
    if (options->json) argv.push_back("--json");
    std::fflush(stdout);
    exit_code = run_inheriting_stdio(argv);
  });
}

}  // namespace capmap

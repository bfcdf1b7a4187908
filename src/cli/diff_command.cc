#include "cli/commands.h"
#include "common/user_error.h"

namespace capmap {

void add_diff_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("diff", "(not built yet)");
  cmd->callback([&exit_code] {
    exit_code = 2;
    throw UserError("diff: not implemented yet");
  });
}

}  // namespace capmap

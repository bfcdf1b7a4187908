#include "cli/commands.h"
#include "common/user_error.h"

namespace capmap {

void add_merge_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("merge", "(not built yet)");
  cmd->callback([&exit_code] {
    exit_code = 2;
    throw UserError("merge: not implemented yet");
  });
}

}  // namespace capmap

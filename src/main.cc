// capmap: which operators of a PyTorch library can be captured as a graph.
#include <cstdio>
#include <exception>

#include "cli/commands.h"
#include "common/user_error.h"

int main(int argc, char** argv) {
  CLI::App app{
      "capmap — survey which operators of a PyTorch library export to ONNX, torch.export and "
      "torch.compile, and publish the answer as a compatibility page."};
  app.set_version_flag("--version", std::string("capmap ") + CAPMAP_VERSION);
  app.require_subcommand(1);
  int exit_code = 0;
  capmap::add_run_command(app, exit_code);
  capmap::add_list_command(app, exit_code);
  capmap::add_merge_command(app, exit_code);
  capmap::add_causes_command(app, exit_code);
  capmap::add_render_command(app, exit_code);
  capmap::add_diff_command(app, exit_code);
  capmap::add_coverage_command(app, exit_code);
  capmap::add_repro_command(app, exit_code);
  capmap::add_report_command(app, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : 2;
  } catch (const capmap::UserError& e) {
    std::fprintf(stderr, "capmap: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "capmap: internal error: %s\n", e.what());
    return 3;
  }
  return exit_code;
}

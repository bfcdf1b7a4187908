// capmap: which operators of a PyTorch library can be captured as a graph.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <string>
#include <string_view>

#include "cli/commands.h"
#include "common/user_error.h"

namespace {

// A build of the checkout (not a pip install) puts the checkout's python/ first on the
// workers' PYTHONPATH: otherwise `python -m capmap.worker` imports whatever capmap package is
// installed, an older one that speaks the same protocol but probes differently.
void prefer_checkout_python() {
#ifdef CAPMAP_CHECKOUT_PYTHON
  const std::filesystem::path checkout = CAPMAP_CHECKOUT_PYTHON;
  std::error_code error;
  if (!std::filesystem::is_regular_file(checkout / "capmap" / "__init__.py", error)) return;
  const char* current = std::getenv("PYTHONPATH");
  std::string value = checkout.string();
  if (current != nullptr && *current != '\0') value += std::string(":") + current;
  setenv("PYTHONPATH", value.c_str(), 1);
#endif
}

}  // namespace

int main(int argc, char** argv) {
  prefer_checkout_python();
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
  capmap::add_history_command(app, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : 2;
  } catch (const capmap::UserError& e) {
    // One line, even when the message quotes a name or text from the input:
    // control characters and the Unicode line breaks (U+0085, U+2028, U+2029)
    // become spaces.
    std::string line;
    std::string_view what = e.what();
    for (std::size_t i = 0; i < what.size(); ++i) {
      unsigned char c = static_cast<unsigned char>(what[i]);
      if (what.substr(i, 3) == "\xE2\x80\xA8" || what.substr(i, 3) == "\xE2\x80\xA9") {
        line += ' ';
        i += 2;
      } else if (what.substr(i, 2) == "\xC2\x85") {
        line += ' ';
        i += 1;
      } else {
        line += c < 0x20 || c == 0x7f ? ' ' : what[i];
      }
    }
    std::fprintf(stderr, "capmap: %s\n", line.c_str());
    return 2;
  } catch (const std::exception& e) {
    // A bug in capmap, never the user's input: README says what to do.
    std::fprintf(stderr,
                 "capmap: internal error: %s (a bug in capmap: please report it with the "
                 "command and its input files)\n",
                 e.what());
    return 3;
  }
  return exit_code;
}

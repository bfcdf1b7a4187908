// capmap history: snapshots of one library under several environments (and,
// optionally, Kornia's own data file) as one version matrix.
#include <cstdio>
#include <filesystem>
#include <memory>

#include "cli/commands.h"
#include "common/atomic_file.h"
#include "common/user_error.h"
#include "history/history_pages.h"

namespace capmap {
namespace {

struct HistoryArgs {
  std::vector<std::string> snapshots;
  std::string out = "history";
  std::string title;
};

}  // namespace

void add_history_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<HistoryArgs>();
  auto* cmd = app.add_subcommand(
      "history",
      "Render the versions where each operator works, from snapshots of one library under "
      "different environments (torch versions): history.html, history.md and history.rst");
  cmd->add_option("snapshot", args->snapshots,
                  "Snapshots, one per torch version, in any order; Kornia's "
                  "export_support.json may be one of them (shown beside its torch, not part "
                  "of the version axis)")
      ->required();
  cmd->add_option("--out", args->out, "Folder for the three files")->capture_default_str();
  cmd->add_option("--title", args->title,
                  "Page title (default: \"LIBRARY across torch versions\")");
  cmd->callback([args, &exit_code] {
    std::vector<VersionColumn> columns;
    for (const auto& file : args->snapshots) columns.push_back(load_version_column(file));
    VersionMatrix matrix = build_version_matrix(std::move(columns));
    std::string title = args->title;
    if (title.empty()) {
      title = (matrix.library.empty() ? std::string("kornia") : matrix.library) +
              " across torch versions";
    }
    const std::filesystem::path out = args->out;
    std::error_code ec;
    std::filesystem::create_directories(out, ec);
    if (ec) throw UserError(out.string() + ": cannot create the folder: " + ec.message());
    write_file_atomically(out / "history.html", history_html(matrix, title));
    write_file_atomically(out / "history.md", history_markdown(matrix, title));
    write_file_atomically(out / "history.rst", history_rst(matrix, title));
    for (const auto& step : matrix.steps) {
      std::fprintf(stderr, "history: %s\n", describe_step(step).c_str());
    }
    std::fprintf(stderr,
                 "history: %zu operator × path rows, %zu columns → %s/history.{html,md,rst}\n",
                 matrix.rows.size(), matrix.columns.size(), out.c_str());
    exit_code = 0;
  });
}

}  // namespace capmap

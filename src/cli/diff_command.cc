// capmap diff: regressions, fixes and other changes between two snapshots.
#include <cstdio>
#include <memory>

#include "cli/commands.h"
#include "cli/junit_output.h"
#include "diff/diff_report.h"
#include "diff/snapshot_diff.h"
#include "snapshot/snapshot_file.h"

namespace capmap {
namespace {

struct DiffArgs {
  std::string old_file, new_file;
  std::string format = "text";
  std::string fail_on;
  std::string junit;
};

}  // namespace

void add_diff_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<DiffArgs>();
  auto* cmd =
      app.add_subcommand("diff",
                         "Compare two snapshots: regressions, fixes, changed causes (against "
                         "Kornia's export_support.json, cases pair by package, operator, variant)");
  cmd->add_option("OLD", args->old_file,
                  "Earlier snapshot, or a Kornia export_support.json (merge --kornia-json)")
      ->required();
  cmd->add_option("NEW", args->new_file,
                  "Later snapshot, or a Kornia export_support.json (merge --kornia-json)")
      ->required();
  cmd->add_option("--format", args->format, "text, md (pull request comment) or json")
      ->check(CLI::IsMember({"text", "md", "json"}));
  cmd->add_option("--fail-on", args->fail_on,
                  "Exit 1 when anything regressed (regression) or changed at all (change)")
      ->check(CLI::IsMember({"regression", "change"}));
  cmd->add_option("--junit", args->junit, "Also write the NEW snapshot as JUnit XML here");
  cmd->callback([args, &exit_code] {
    auto before = load_snapshot_or_kornia_survey(args->old_file);
    auto after = load_snapshot_or_kornia_survey(args->new_file);
    SnapshotDiff diff = diff_snapshots(before, after);
    std::string out;
    if (args->format == "md") {
      out = diff_as_markdown(diff);
    } else if (args->format == "json") {
      out = diff_as_json(diff).dump(2) + "\n";
    } else {
      out = diff_as_text(diff);
    }
    std::fputs(out.c_str(), stdout);
    if (!args->junit.empty()) write_junit_report(after, args->junit);
    exit_code = 0;
    if (args->fail_on == "regression" && diff.count(ChangeKind::kRegression) > 0) exit_code = 1;
    if (args->fail_on == "change" && (!diff.changes.empty() || !diff.header.empty())) exit_code = 1;
  });
}

}  // namespace capmap

// capmap report: a snapshot as a report CI systems read natively (JUnit XML).
#include <cstdio>
#include <memory>

#include "cli/commands.h"
#include "cli/junit_output.h"
#include "snapshot/snapshot_file.h"

namespace capmap {
namespace {

struct ReportArgs {
  std::string snapshot;
  std::string junit;
};

}  // namespace

void add_report_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<ReportArgs>();
  auto* cmd = app.add_subcommand("report", "Write a snapshot as a CI report (JUnit XML)");
  cmd->add_option("SNAPSHOT", args->snapshot, "Snapshot written by capmap merge")->required();
  cmd->add_option("--junit", args->junit,
                  "Write JUnit XML here: one testcase per case × path, a failure per failing "
                  "cell, skipped where a path does not apply")
      ->required();
  cmd->callback([args, &exit_code] {
    write_junit_report(load_snapshot(args->snapshot), args->junit);
    exit_code = 0;
  });
}

}  // namespace capmap

#pragma once
// Each subcommand registers itself on the top-level app. A command's callback
// stores its exit code in `exit_code`; user errors are thrown as UserError.
#include <CLI/CLI.hpp>

namespace capmap {

void add_run_command(CLI::App& app, int& exit_code);
void add_list_command(CLI::App& app, int& exit_code);
void add_merge_command(CLI::App& app, int& exit_code);
void add_causes_command(CLI::App& app, int& exit_code);
void add_render_command(CLI::App& app, int& exit_code);
void add_diff_command(CLI::App& app, int& exit_code);
void add_coverage_command(CLI::App& app, int& exit_code);
void add_repro_command(CLI::App& app, int& exit_code);
void add_report_command(CLI::App& app, int& exit_code);
void add_history_command(CLI::App& app, int& exit_code);

}  // namespace capmap

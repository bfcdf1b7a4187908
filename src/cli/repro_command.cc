// capmap repro: a script that reproduces a failing case × path outside capmap,
// and `--check`, which runs the script of every failing cell in a fresh
// process and records whether it reproduced its record. Writing and running
// scripts needs Python (the registry, torch), so the command runs
// `PYTHON -m capmap.repro`; the verdicts come back on fd 3 and this side
// stores them: in the store's `repro` table, or in the snapshot itself. For a
// store, this side chooses the run (the newest, as merge chooses it) and
// passes its key, so the rule lives in one place.
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cli/commands.h"
#include "cli/python_module.h"
#include "common/atomic_file.h"
#include "common/user_error.h"
#include "merge/repro_marks.h"
#include "merge/run_choice.h"
#include "snapshot/snapshot_file.h"
#include "snapshot/snapshot_json.h"
#include "store/repro_table.h"

namespace capmap {

namespace {

struct ReproCommandOptions {
  std::string name;
  std::string path;
  std::string store = "capmap-results/results.db";
  std::string output;
  std::vector<std::string> registries;
  bool check = false;
  bool all = false;
  int sample = 0;
  bool unchecked = false;
  double timeout = 420;
  std::string dir;
};

bool is_sqlite_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  char head[16] = {};
  in.read(head, sizeof head);
  return in.gcount() == sizeof head &&
         std::string(head, sizeof head) == std::string("SQLite format 3\0", 16);
}

// The key of the store's newest run, chosen by merge's rule (choose_run). The
// reader is closed before Python starts: it holds a read transaction.
std::string newest_run_key(const std::filesystem::path& file) {
  StoreReader reader(file);
  const std::vector<std::vector<StoredRun>> runs = {reader.runs()};
  if (runs.front().empty()) {
    throw UserError(fmt::format("{}: results store holds no run yet", file.string()));
  }
  return choose_run(runs, "", VersionFilter{}, file.string()).run->run_key;
}

// One verdict line from `python -m capmap.repro --check`.
ReproResult parse_result(const std::string& line) {
  auto json = nlohmann::json::parse(line, nullptr, false);
  if (!json.is_object())
    throw UserError(fmt::format("repro: malformed verdict line: {:.120}", line));
  ReproResult result;
  result.run_key = json.value("run_key", "");
  result.case_name = json.value("case", "");
  result.path = json.value("path", "");
  result.record_created = json.value("created", "");
  result.reproduced = json.value("reproduced", false);
  result.outcome = json.value("outcome", "");
  result.script = json.value("script", "");
  return result;
}

// Marks every checked path of the snapshot and writes it back whole.
void mark_snapshot(const std::filesystem::path& file, const std::vector<ReproResult>& results) {
  nlohmann::json snapshot = load_snapshot(file);
  std::map<std::pair<std::string, std::string>, const ReproResult*> by_cell;
  for (const auto& r : results) by_cell[{r.case_name, r.path}] = &r;
  for (auto& entry : snapshot["cases"]) {
    if (!entry.contains("paths") || !entry["paths"].is_object()) continue;
    std::string name = entry.value("name", "");
    for (auto& [path, record] : entry["paths"].items()) {
      auto it = by_cell.find({name, path});
      if (it == by_cell.end() || !record.is_object()) continue;
      add_repro_fields(record, *it->second);
    }
  }
  write_file_atomically(file, snapshot_text(snapshot));
}

void repro_command(const ReproCommandOptions& options, int& exit_code) {
  int modes = !options.name.empty() + options.check + options.all;
  if (modes != 1) throw UserError("repro: give a case NAME, or --check, or --all");
  if (!options.output.empty() && options.name.empty())
    throw UserError("repro: -o goes with a case NAME");
  std::filesystem::path source = options.store;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(source, ec)) {
    throw UserError(fmt::format("{}: no such results store or snapshot", source.string()));
  }
  bool store = is_sqlite_file(source);

  std::vector<std::string> args = {"capmap.repro", "--store", source.string()};
  if (store) args.insert(args.end(), {"--run-key", newest_run_key(source)});
  for (const auto& r : options.registries) {
    args.push_back("--registry");
    args.push_back(r);
  }
  if (!options.dir.empty()) args.insert(args.end(), {"--dir", options.dir});
  if (!options.check) {
    if (options.all) args.push_back("--all");
    if (!options.name.empty()) args.push_back(options.name);
    if (!options.path.empty()) args.insert(args.end(), {"--path", options.path});
    if (!options.output.empty()) args.insert(args.end(), {"-o", options.output});
    exit_code = run_python_module(args);
    return;
  }

  // Refuse a bad store or snapshot before any script runs; nothing is changed.
  std::optional<ReproTable> table;
  if (store) {
    table.emplace(ReproTable::open(source));
  } else {
    load_snapshot(source);
  }
  args.insert(args.end(),
              {"--check", "--results-fd", "3", "--timeout", fmt::format("{}", options.timeout)});
  if (options.sample > 0) args.insert(args.end(), {"--sample", std::to_string(options.sample)});
  if (options.unchecked) args.push_back("--unchecked");
  std::vector<ReproResult> results;
  exit_code = run_python_module(args, [&](const std::string& line) {
    ReproResult result = parse_result(line);
    if (table) table->put(result);  // committed at once: an interrupted check keeps its verdicts
    results.push_back(std::move(result));
  });
  if (results.empty()) return;
  if (table) {
    std::fprintf(stderr,
                 "capmap: stored %zu repro verdicts in %s; `capmap merge` carries them into the "
                 "snapshot\n",
                 results.size(), source.c_str());
  } else {
    mark_snapshot(source, results);
    std::fprintf(stderr, "capmap: marked %zu checked paths in %s\n", results.size(),
                 source.c_str());
  }
}

}  // namespace

void add_repro_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<ReproCommandOptions>();
  auto* cmd = app.add_subcommand(
      "repro",
      "Write a script that reproduces a failing case outside capmap, or check that the "
      "scripts of every failing case reproduce their records");
  cmd->add_option("name", options->name, "Case to write a script for");
  cmd->add_option("--path", options->path,
                  "Capture path: any path the run announced but eager, as `capmap list --paths` "
                  "prints them (default: every path the case fails on)");
  cmd->add_option("--store", options->store,
                  "Results store (SQLite) or snapshot JSON the records come from")
      ->capture_default_str();
  cmd->add_option("-o,--output", options->output,
                  "Script file (when the case fails on one path), or a folder (existing, or a "
                  "name ending in /) that gets each failing path's script");
  cmd->add_option("--registry", options->registries,
                  "Registry the cases come from (repeatable; default: the one the run used, else "
                  "the Kornia survey)")
      ->allow_extra_args(false);
  cmd->add_flag("--check", options->check,
                "Run the script of every failing case x path in a fresh process and record "
                "whether it reproduced (exit 1 when one did not)");
  cmd->add_flag("--all", options->all, "Write the scripts of every failing case x path");
  cmd->add_option("--sample", options->sample,
                  "With --check: check only N failing cells, at random")
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--unchecked", options->unchecked,
                "With --check: only the failing cells that have no verdict for their current "
                "record yet (an interrupted check goes on where it stopped)");
  cmd->add_option("--timeout", options->timeout,
                  "With --check: seconds a script may run (a timeout record keeps its own limit)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--dir", options->dir,
                  "Folder for the scripts of --check and --all (default: repro/ beside the store)");
  cmd->callback([options, &exit_code] { repro_command(*options, exit_code); });
}

}  // namespace capmap

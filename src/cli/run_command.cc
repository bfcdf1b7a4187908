// capmap run: probe the cases of one or more registries and store every outcome.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "cli/commands.h"
#include "common/user_error.h"
#include "merge/merge.h"
#include "render/render.h"
#include "run/byte_size.h"
#include "run/case_selection.h"
#include "run/interrupt_watcher.h"
#include "run/progress_display.h"
#include "run/python_locator.h"
#include "run/run_summary.h"
#include "run/scheduler.h"
#include "run/shard.h"
#include "run/supervisor.h"
#include "run/task_planner.h"
#include "store/result_store.h"
#include "store/run_key.h"

namespace capmap {

namespace {

const std::vector<std::string> kKnownPaths = {"eager", "onnx", "export", "compile"};

struct RunCommandOptions {
  std::vector<std::string> registries;
  int jobs = 0;
  std::vector<std::string> only;
  std::string paths = "eager,onnx,export,compile";
  double timeout = 420;
  std::string memory_limit = "8G";
  std::string store = "capmap-results/results.db";
  std::string shard;
  bool retry_crashed = false;
  int opset = 18;
  bool strict = false;
  std::vector<std::string> tags;
  bool all = false;
  bool no_merge = false;
  std::string out;
};

std::vector<std::string> parse_paths(const std::string& text) {
  std::vector<std::string> paths;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    std::string path = text.substr(start, comma == std::string::npos ? comma : comma - start);
    if (std::find(kKnownPaths.begin(), kKnownPaths.end(), path) == kKnownPaths.end()) {
      throw UserError(
          fmt::format("--paths '{}': unknown path '{}' (known: eager, onnx, export, "
                      "compile)",
                      text, path));
    }
    if (std::find(paths.begin(), paths.end(), path) == paths.end()) paths.push_back(path);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return paths;
}

std::string cpu_model() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.starts_with("model name")) {
      auto colon = line.find(':');
      if (colon != std::string::npos) {
        auto value = line.substr(colon + 1);
        value.erase(0, value.find_first_not_of(' '));
        return value;
      }
    }
  }
  return "";
}

// Writes snapshot.json and page.html for this run key. The snapshot holds every
// case the store was asked to measure; one shard alone cannot be complete, so
// its snapshot is forced and says which records it lacks.
void merge_and_render(const std::filesystem::path& store, const std::filesystem::path& out_dir,
                      const std::string& run_key, bool partial) {
  MergeOptions merge;
  merge.stores = {store};
  merge.out = out_dir / "snapshot.json";
  merge.run_key = run_key;
  merge.force = partial;
  auto snapshot = merge_stores(merge);
  RenderOptions render;
  render.html = out_dir / "page.html";
  render_snapshot(snapshot, render);
  std::fprintf(stderr, "capmap: wrote %s and %s\n", merge.out.c_str(), render.html->c_str());
}

void run_command(const RunCommandOptions& options, int& exit_code) {
  // Check everything the user typed before any process starts.
  auto paths = parse_paths(options.paths);
  CaseFilter filter;
  filter.only = options.only;
  filter.tags = options.tags;
  if (!options.shard.empty()) filter.shard = parse_shard(options.shard);
  SupervisorOptions supervisor_options;
  supervisor_options.memory_limit = parse_byte_size(options.memory_limit);
  supervisor_options.timeout_seconds = options.timeout;
  supervisor_options.jobs =
      options.jobs > 0 ? options.jobs
                       : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  supervisor_options.python = locate_python();
  supervisor_options.registries = options.registries;
  supervisor_options.settings = {{"opset", options.opset}, {"export_strict", options.strict}};
  std::filesystem::path store_path = options.store;
  ResultStore::check_existing(store_path);

  InterruptWatcher interrupts;
  Supervisor supervisor(supervisor_options, interrupts);
  auto hello = supervisor.start();
  if (!hello) {
    exit_code = interrupts.exit_code();
    return;
  }

  const auto& inventory = hello->at("cases");
  // The bundled default surveys its quick tier unless told otherwise.
  bool default_tier =
      options.registries.empty() && !options.all && filter.only.empty() && filter.tags.empty();
  if (default_tier) {
    bool has_quick = std::any_of(inventory.begin(), inventory.end(), [](const auto& c) {
      auto tags = c.find("tags");
      return tags != c.end() && tags->is_array() &&
             std::find(tags->begin(), tags->end(), "quick") != tags->end();
    });
    if (has_quick) filter.tags = {"quick"};
  }
  auto selected = select_cases(inventory, filter);
  // The store's inventory is what this run was asked to measure, before the
  // shard split, so merge can tell a finished quick tier from a shard's gap.
  CaseFilter unsharded = filter;
  unsharded.shard = {};
  auto asked = filter.shard.count > 1 ? select_cases(inventory, unsharded) : selected;

  auto library = hello->value("library", nlohmann::json::object());
  auto versions = hello->value("versions", nlohmann::json::object());
  std::string run_key = compute_run_key(library, versions, supervisor_options.settings);

  // Only now, with the registry loaded and the options valid, touch the store.
  auto store = ResultStore::open_for_writing(store_path);
  RunDescription run;
  run.run_key = run_key;
  run.info = {{"library", library},
              {"versions", versions},
              {"settings", supervisor_options.settings},
              {"device", hello->value("device", "cpu")},
              {"cpu", cpu_model()},
              {"cores", std::thread::hardware_concurrency()},
              {"coverage", hello->value("coverage", nlohmann::json())}};
  run.cases = asked;
  run.excludes = hello->value("excludes", nlohmann::json::array());
  run.shard = filter.shard.index;
  run.shard_count = filter.shard.count;
  run.paths = paths;
  store.begin_run(run);

  auto plan = plan_tasks(store, run_key, selected, paths, options.retry_crashed);
  auto durations = store.known_durations();
  Scheduler queue;
  size_t to_record = 0;
  for (auto& task : plan.tasks) {
    to_record += task.paths.size();
    auto expected = expected_seconds(task, durations);
    queue.push(std::move(task), expected);
  }
  bool live = isatty(STDERR_FILENO) != 0;
  std::fprintf(stderr,
               "capmap: run key %s, %zu cases selected, %zu tasks to run on %d workers "
               "(%d records already stored, %d skip records written)\n",
               run_key.c_str(), selected.size(), plan.tasks.size(), supervisor_options.jobs,
               plan.already_recorded, plan.skipped_written);
  if (plan.crashed_written > 0) {
    std::fprintf(stderr, "capmap: %d paths recorded as crashed after repeated dispatches\n",
                 plan.crashed_written);
  }

  ProgressDisplay progress(stderr, live, to_record);
  double cpu_before = process_cpu_seconds();
  RunFigures figures;
  figures.stats = supervisor.run(queue, store, run_key, durations, progress);
  figures.supervisor_cpu_seconds = process_cpu_seconds() - cpu_before;
  figures.workers = supervisor_options.jobs;
  progress.finish();

  std::vector<std::string> names;
  for (const auto& c : selected) names.push_back(c.at("name").get<std::string>());
  std::fputs(format_run_table(store, run_key, names, paths).c_str(), stdout);
  std::puts(format_figures_line(figures).c_str());
  std::fflush(stdout);

  if (figures.stats.interrupt_exit_code != 0) {
    std::fprintf(stderr, "capmap: interrupted; records so far are kept in %s\n",
                 store_path.c_str());
    exit_code = figures.stats.interrupt_exit_code;
    return;
  }
  if (!options.no_merge) {
    std::filesystem::path out =
        options.out.empty() ? store_path.parent_path() : std::filesystem::path(options.out);
    bool partial = filter.shard.count > 1;
    merge_and_render(store_path, out, run_key, partial);
  }
  exit_code = 0;
}

}  // namespace

void add_run_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<RunCommandOptions>();
  auto* cmd = app.add_subcommand(
      "run",
      "Probe the cases of registries in parallel, isolated workers and store every outcome.");
  cmd->add_option("registry", options->registries,
                  "Registry: a .py file, a folder of them, or an importable module "
                  "(default: the bundled Kornia registry)");
  cmd->add_option("-j,--jobs", options->jobs, "Worker processes (default: number of cores)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--only", options->only,
                  "Run only cases whose name, name prefix or group matches (repeatable); a "
                  "pattern that matches nothing is an error")
      ->allow_extra_args(false);
  cmd->add_option("--paths", options->paths,
                  "Comma-separated paths to probe, from eager,onnx,export,compile")
      ->capture_default_str();
  cmd->add_option("--timeout", options->timeout, "Time limit per path in seconds")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--memory-limit", options->memory_limit,
                  "Memory limit per task (RSS of its whole process group), e.g. 8G, 512M")
      ->capture_default_str();
  cmd->add_option("--store", options->store, "Results store (SQLite file)")->capture_default_str();
  cmd->add_option("--shard", options->shard,
                  "Run only shard I of N (1-based, e.g. 2/4); each shard writes its own store");
  cmd->add_flag("--retry-crashed", options->retry_crashed,
                "Run again the paths whose stored record is 'crashed'");
  cmd->add_option("--opset", options->opset, "ONNX opset for the onnx path")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--strict", options->strict, "Use torch.export strict mode for the export path");
  cmd->add_option("--tag", options->tags, "Run only cases carrying this tag (repeatable)")
      ->allow_extra_args(false);
  cmd->add_flag(
      "--all", options->all,
      "Run every case (without REGISTRY, the default is the Kornia registry's cases "
      "tagged 'quick' unless --only or --tag is given; with REGISTRY arguments, all their "
      "cases)");
  cmd->add_flag("--no-merge", options->no_merge,
                "Do not write snapshot.json and page.html after the run");
  cmd->add_option("--out", options->out,
                  "Folder for snapshot.json and page.html (default: the store's folder)");
  cmd->callback([options, &exit_code] { run_command(*options, exit_code); });
}

}  // namespace capmap

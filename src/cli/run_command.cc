// capmap run: probe the cases of one or more registries and store every outcome.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "cli/commands.h"
#include "common/user_error.h"
#include "merge/baseline.h"
#include "merge/merge.h"
#include "render/render.h"
#include "run/byte_size.h"
#include "run/compile_cache.h"
#include "run/interrupt_watcher.h"
#include "run/known_durations.h"
#include "run/progress_display.h"
#include "run/python_check.h"
#include "run/python_locator.h"
#include "run/repro_writer.h"
#include "run/run_paths.h"
#include "run/run_summary.h"
#include "run/scheduler.h"
#include "run/shard_split.h"
#include "run/supervisor.h"
#include "run/task_planner.h"
#include "selection/case_selection.h"
#include "selection/change_request.h"
#include "selection/change_selection.h"
#include "selection/shard.h"
#include "store/result_store.h"
#include "store/run_key.h"
#include "store/storage_error.h"
#include "store/store_lock.h"

namespace capmap {

namespace {

struct RunCommandOptions {
  std::vector<std::string> registries;
  int jobs = 0;
  int workers = 1;
  bool fresh_children = false;
  std::vector<std::string> only;
  std::string paths;  // empty: the paths the worker announces as default
  double timeout = 420;
  std::string memory_limit = "8G";
  std::string store = "capmap-results/results.db";
  std::string shard;
  bool retry_crashed = false;
  int opset = 18;
  bool strict = false;
  bool no_flatten = false;
  std::vector<std::string> tags;
  bool all = false;
  bool no_merge = false;
  std::string out;
  bool repro = false;
  std::vector<std::string> changed;
  std::string changed_since;
  bool changed_auto = false;
  std::string baseline;
  std::string shard_by = "name";
  std::string python;         // empty: CAPMAP_PYTHON, else the interpreter beside capmap
  std::string compile_cache;  // empty: CAPMAP_COMPILE_CACHE, else a folder under the system's tmp
};

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
                      const std::string& run_key, bool partial, const std::string& baseline) {
  MergeOptions merge;
  merge.stores = {store};
  if (!baseline.empty()) merge.baseline = baseline;
  merge.out = out_dir / "snapshot.json";
  merge.run_key = run_key;
  merge.force = partial;
  auto snapshot = merge_stores(merge);
  RenderOptions render;
  render.html = out_dir / "page.html";
  render_snapshot(snapshot, render);
  std::fprintf(stderr, "capmap: wrote %s and %s\n", merge.out.c_str(), render.html->c_str());
}

// Registry arguments as `capmap repro` can load them later from anywhere: files
// and folders by absolute path, modules by name.
nlohmann::json registry_specs(const std::vector<std::string>& registries) {
  nlohmann::json specs = nlohmann::json::array();
  for (const auto& spec : registries) {
    std::error_code ec;
    bool on_disk = std::filesystem::exists(spec, ec);
    specs.push_back(on_disk ? std::filesystem::absolute(spec).lexically_normal().string() : spec);
  }
  return specs;
}

// The snapshot of the newest run a store holds, complete or not: what a change
// selection compares with when no baseline is given. Null without one.
std::optional<nlohmann::json> previous_snapshot(const std::filesystem::path& store) {
  std::error_code ec;
  if (!std::filesystem::exists(store, ec)) return std::nullopt;
  MergeOptions merge;
  merge.stores = {store};
  try {
    return build_snapshot(merge).snapshot;
  } catch (const UserError&) {
    return std::nullopt;  // no run yet
  }
}

void run_command(const RunCommandOptions& options, int& exit_code) {
  // Check everything the user typed before any process starts.
  const auto requested_paths = split_path_list(options.paths);
  CaseFilter filter;
  filter.only = options.only;
  filter.tags = options.tags;
  if (!options.shard.empty()) filter.shard = parse_shard(options.shard);
  const ShardBy shard_by = parse_shard_by(options.shard_by);
  SupervisorOptions supervisor_options;
  supervisor_options.memory_limit = parse_byte_size(options.memory_limit);
  supervisor_options.timeout_seconds = options.timeout;
  supervisor_options.jobs =
      options.jobs > 0 ? options.jobs
                       : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  supervisor_options.workers = options.workers;
  supervisor_options.reuse_children = !options.fresh_children;
  supervisor_options.registries = options.registries;
  supervisor_options.settings = {{"opset", options.opset}, {"export_strict", options.strict}};
  // Written only when off, so that runs with the default keep their run keys.
  if (options.no_flatten) supervisor_options.settings["flatten"] = false;
  std::filesystem::path store_path = options.store;
  ResultStore::check_existing(store_path);
  // Another run writing this store would run the same tasks: refuse before any work.
  StoreLock::check_free(store_path);
  // The workers' interpreter: every process this run starts (workers, repro
  // writer, hash checks) finds it through CAPMAP_PYTHON.
  if (!options.python.empty()) ::setenv("CAPMAP_PYTHON", options.python.c_str(), 1);
  supervisor_options.python = locate_python();
  const PythonEnvironment environment = check_python_environment(
      supervisor_options.python, !options.python.empty()                   ? "--python"
                                 : std::getenv("CAPMAP_PYTHON") != nullptr ? "CAPMAP_PYTHON"
                                                                           : "interpreter");
  std::string cache_option = "--compile-cache";
  std::string cache_dir = options.compile_cache;
  if (const char* env = std::getenv("CAPMAP_COMPILE_CACHE");
      cache_dir.empty() && env != nullptr && *env != '\0') {
    cache_dir = env;
    cache_option = "CAPMAP_COMPILE_CACHE";
  }
  std::filesystem::path cache_folder;
  if (!cache_dir.empty()) {
    // The workers' compile slots live there (claim_compile_cache in
    // python/capmap/worker/process_control.py).
    cache_folder = prepare_compile_cache(cache_dir, cache_option, environment);
    ::setenv("CAPMAP_COMPILE_SLOTS", cache_folder.c_str(), 1);
  }
  ChangeRequest change_request{options.changed, options.changed_since, options.changed_auto};
  const bool by_change = change_request.any();
  if (shard_by == ShardBy::kTime && options.baseline.empty()) {
    throw UserError(
        "--shard-by time: needs --baseline, so that every shard splits by the same durations");
  }
  // Without a change, a baseline only tells how long each case takes.
  std::optional<Baseline> baseline;
  if (!options.baseline.empty()) baseline.emplace(options.baseline);
  auto changed_files = named_changed_files(change_request);

  InterruptWatcher interrupts;
  Supervisor supervisor(supervisor_options, interrupts);
  auto hello = supervisor.start();
  if (!hello) {
    exit_code = interrupts.exit_code();
    return;
  }

  // Any path the worker's probes package announces; the warm-up readies those the run probes.
  const auto announced = announced_paths(*hello);
  const auto paths = choose_run_paths(requested_paths, announced);
  supervisor.set_warm_up_paths(paths);

  const auto& inventory = hello->at("cases");
  // The bundled default surveys its quick tier unless told otherwise.
  use_default_tier(inventory, !options.registries.empty(), options.all, filter);
  // The store's inventory is what this run was asked to measure, before the
  // shard split, so merge can tell a finished quick tier from a shard's gap.
  CaseFilter unsharded = filter;
  unsharded.shard = {};
  auto asked = select_cases(inventory, unsharded);
  const DurationTable baseline_durations =
      baseline ? snapshot_durations(baseline->snapshot()) : DurationTable{};
  auto selected = shard_cases(asked, filter.shard, shard_by, baseline_durations, paths);

  auto library = hello->value("library", nlohmann::json::object());
  auto versions = hello->value("versions", nlohmann::json::object());
  std::string run_key = compute_run_key(library, versions, supervisor_options.settings);

  // --changed: only the cases the change can affect run; with --baseline the
  // others are carried over at merge, else the run asks only for those.
  const std::size_t shard_case_count = selected.size();
  if (by_change) {
    std::optional<nlohmann::json> previous;
    if (!baseline) previous = previous_snapshot(store_path);
    const nlohmann::json* known = baseline   ? &baseline->snapshot()
                                  : previous ? &*previous
                                             : nullptr;
    nlohmann::json this_run = {
        {"library", library}, {"versions", versions}, {"settings", supervisor_options.settings}};
    add_files_changed_by_hash(change_request, known, supervisor_options.python,
                              library.value("name", ""), changed_files);
    auto change = select_changed_cases(asked, known, this_run, changed_files, paths);
    std::fprintf(stderr, "capmap: %s\n", describe_change_selection(change).c_str());
    selected = shard_cases(change.to_run, filter.shard, shard_by, baseline_durations, paths);
    if (!baseline) asked = change.to_run;
  }

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
              {"coverage", hello->value("coverage", nlohmann::json())},
              {"path_info", path_info_list_json(announced)},
              // What `capmap repro` loads the cases from (not part of the run key).
              {"registries", registry_specs(options.registries)}};
  run.cases = asked;
  run.excludes = hello->value("excludes", nlohmann::json::array());
  run.shard = filter.shard.index;
  run.shard_count = filter.shard.count;
  run.paths = paths;
  // The selection reaches the snapshot header, so a partial run says so.
  run.only = filter.only;
  run.tags = filter.tags;
  run.registry_cases = static_cast<long long>(inventory.size());
  store.begin_run(run);
  // --repro: scripts of the failing cells, written by a low-priority process as records arrive.
  std::optional<ReproWriter> repro_writer;
  if (options.repro) repro_writer.emplace(supervisor_options.python, store_path, run_key);

  auto plan = plan_tasks(store, run_key, selected, paths, options.retry_crashed);
  // Longest first from what is known: the store's earlier records over the baseline's.
  auto durations = overlay_durations(baseline_durations, store.known_durations());
  Scheduler queue;
  size_t to_record = 0;
  for (auto& task : plan.tasks) {
    to_record += task.paths.size();
    auto expected = expected_seconds(task, durations);
    queue.push(std::move(task), expected);
  }
  // Said once every option is checked, so a refusal stays one line.
  if (std::getenv("CAPMAP_PYTHON") != nullptr) {
    std::fprintf(stderr, "capmap: workers run under %s (Python %s, torch %s)\n",
                 supervisor_options.python.c_str(), environment.python.c_str(),
                 environment.torch.c_str());
  }
  if (!cache_folder.empty()) {
    std::fprintf(stderr, "capmap: compiler cache in %s (keep this folder between runs)\n",
                 cache_folder.c_str());
  }
  bool live = isatty(STDERR_FILENO) != 0;
  std::fprintf(stderr,
               "capmap: run key %s, %zu cases selected, %zu tasks to run on %d workers "
               "(%d warm process%s; %d records already stored, %d skip records written)\n",
               run_key.c_str(), selected.size(), plan.tasks.size(), supervisor_options.jobs,
               std::min(supervisor_options.workers, supervisor_options.jobs),
               std::min(supervisor_options.workers, supervisor_options.jobs) == 1 ? "" : "es",
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
  figures.cases_ran = selected.size();
  figures.cases_carried = baseline && by_change ? shard_case_count - selected.size() : 0;
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
    return;  // the repro writer stops; the scripts it wrote stay
  }
  // The writer catches up while merge runs.
  if (repro_writer) repro_writer->run_over();
  if (!options.no_merge) {
    std::filesystem::path out =
        options.out.empty() ? store_path.parent_path() : std::filesystem::path(options.out);
    bool partial = filter.shard.count > 1;
    merge_and_render(store_path, out, run_key, partial, by_change ? options.baseline : "");
  }
  exit_code = 0;
  if (repro_writer) {
    int code = repro_writer->finish(interrupts);
    if (code < 0) {
      std::fprintf(stderr, "capmap: interrupted; the repro scripts written so far are kept\n");
      exit_code = interrupts.exit_code();
    } else if (code != 0) {
      std::fprintf(stderr, "capmap: writing repro scripts failed (exit %d)\n", code);
    }
  }
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
  cmd->add_option("-j,--jobs", options->jobs,
                  "Tasks that run at once, each in its own forked child (default: number of cores)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--workers", options->workers,
                  "Warm worker processes that fork the children of the --jobs slots; each pays "
                  "the import and compiler warm-up once (default 1)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1024));
  cmd->add_flag("--fresh-children", options->fresh_children,
                "Fork a new child for every task. By default a child runs several tasks in a "
                "row while each leaves no trace (torch's and the library's names, settings, "
                "processes), which saves the fork and the re-warming of every task");
  cmd->add_option("--only", options->only,
                  "Run only cases whose name, name prefix or group matches (repeatable); a "
                  "pattern that matches nothing is an error")
      ->allow_extra_args(false);
  cmd->add_option("--paths", options->paths,
                  "Comma-separated paths to probe: any that `capmap list --paths` prints (default: "
                  "those it marks default: eager,onnx,export,compile)");
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
  cmd->add_flag("--no-flatten", options->no_flatten,
                "Capture each case's own inputs and result, library objects and all, instead of "
                "the tensors inside them");
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
  cmd->add_option("--changed", options->changed,
                  "Run only the cases that executed one of these library files (recorded by an "
                  "earlier run), are defined in one of them, or are new or changed in the "
                  "registry; give REGISTRY arguments before this option");
  cmd->add_option("--changed-since", options->changed_since,
                  "Like --changed, with the files `git diff --name-only REV` lists for the "
                  "checkout of the current folder");
  cmd->add_flag("--changed-auto", options->changed_auto,
                "Like --changed, with the library files whose installed content hashes "
                "differently from what the --baseline (else the store's last run) recorded: "
                "no git history needed");
  cmd->add_option("--baseline", options->baseline,
                  "Snapshot of a full run: tells which files each case executes and how long "
                  "each takes (the longest start first, --shard-by time); with --changed the "
                  "cases it does not select are carried over from it into the snapshot");
  cmd->add_option("--shard-by", options->shard_by,
                  "How --shard splits the cases: name (a hash of the name, the default) or "
                  "time (longest first by the --baseline's durations, so the shards finish "
                  "together)")
      ->capture_default_str();
  cmd->add_option("--python", options->python,
                  "Run the workers under this interpreter, e.g. ENV/bin/python of an environment "
                  "with another torch (`python -m capmap.make_env` makes one); records of each "
                  "environment go under their own run key, so one store holds several (default: "
                  "$CAPMAP_PYTHON, else the python3 beside capmap, else on PATH)");
  cmd->add_option("--compile-cache", options->compile_cache,
                  "Keep inductor's compiled kernels and graphs in this folder, under a folder per "
                  "torch and capmap version, so the next run (a CI job that restores the folder) "
                  "compiles warm (default: $CAPMAP_COMPILE_CACHE, else a folder under the "
                  "system's temporary folder, reused by runs on the same machine)");
  cmd->add_flag("--repro", options->repro,
                "Write a script that reproduces each failing case x path outside capmap into "
                "repro/ beside the store, as the run records the failures");
  cmd->callback([options, &exit_code] {
    try {
      run_command(*options, exit_code);
    } catch (const StorageError& e) {
      // Every record is committed as it arrives, so what was stored stays.
      throw StorageError(fmt::format(
          "{}; the records committed before this are kept in {}: fix that, then run the same "
          "command again and it resumes where it stopped",
          e.what(), options->store));
    }
  });
}

}  // namespace capmap

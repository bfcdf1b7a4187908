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
#include "cli/run_cases.h"
#include "cli/run_setup.h"
#include "merge/baseline.h"
#include "merge/merge.h"
#include "render/render.h"
#include "run/interrupt_watcher.h"
#include "run/known_durations.h"
#include "run/progress_display.h"
#include "run/repro_writer.h"
#include "run/run_paths.h"
#include "run/run_summary.h"
#include "run/scheduler.h"
#include "run/supervisor.h"
#include "run/task_planner.h"
#include "selection/change_request.h"
#include "store/result_store.h"
#include "store/run_key.h"
#include "store/storage_error.h"

namespace capmap {

namespace {

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

// What the store records of this run: its environment (runs.info), the cases it
// was asked for, its shard and its selection, which reaches the snapshot header
// so a partial run says so.
RunDescription describe_run(const nlohmann::json& hello, const RunCommandOptions& options,
                            const RunSetup& setup, const nlohmann::json& this_run,
                            const std::string& run_key, const std::vector<PathInfo>& announced,
                            const std::vector<std::string>& paths,
                            const std::vector<nlohmann::json>& asked) {
  RunDescription run;
  run.run_key = run_key;
  run.info = {{"library", this_run["library"]},
              {"versions", this_run["versions"]},
              {"settings", this_run["settings"]},
              {"device", hello.value("device", "cpu")},
              {"cpu", cpu_model()},
              // The worker's CPU vendor, torch ISA and BLAS settings: provenance only.
              {"machine", hello.value("machine", nlohmann::json())},
              {"cores", std::thread::hardware_concurrency()},
              {"coverage", hello.value("coverage", nlohmann::json())},
              {"path_info", path_info_list_json(announced)},
              // What `capmap repro` loads the cases from (not part of the run key).
              {"registries", registry_specs(options.registries)}};
  run.cases = asked;
  run.excludes = hello.value("excludes", nlohmann::json::array());
  run.shard = setup.filter.shard.index;
  run.shard_count = setup.filter.shard.count;
  run.paths = paths;
  run.only = setup.filter.only;
  run.tags = setup.filter.tags;
  run.registry_cases = static_cast<long long>(hello.at("cases").size());
  return run;
}

// The planned tasks, longest first from what is known; returns how many
// records they are to write.
size_t queue_tasks(std::vector<Task>& tasks, const DurationTable& durations, Scheduler& queue) {
  size_t to_record = 0;
  for (auto& task : tasks) {
    to_record += task.paths.size();
    auto expected = expected_seconds(task, durations);
    queue.push(std::move(task), expected);
  }
  return to_record;
}

// Said once every option is checked, so a refusal stays one line.
void announce_run(const RunSetup& setup, const std::string& run_key, size_t selected,
                  const TaskPlan& plan) {
  const SupervisorOptions& supervisor = setup.supervisor;
  if (std::getenv("CAPMAP_PYTHON") != nullptr) {
    std::fprintf(stderr, "capmap: workers run under %s (Python %s, torch %s)\n",
                 supervisor.python.c_str(), setup.environment.python.c_str(),
                 setup.environment.torch.c_str());
  }
  if (!setup.cache_folder.empty()) {
    std::fprintf(stderr, "capmap: compiler cache in %s (keep this folder between runs)\n",
                 setup.cache_folder.c_str());
  }
  const int processes = std::min(supervisor.workers, supervisor.jobs);
  std::fprintf(stderr,
               "capmap: run key %s, %zu cases selected, %zu tasks to run on %d workers "
               "(%d warm process%s; %d records already stored, %d skip records written)\n",
               run_key.c_str(), selected, plan.tasks.size(), supervisor.jobs, processes,
               processes == 1 ? "" : "es", plan.already_recorded, plan.skipped_written);
  if (plan.crashed_written > 0) {
    std::fprintf(stderr, "capmap: %d paths recorded as crashed after repeated dispatches\n",
                 plan.crashed_written);
  }
}

// The status table of the cases this run ran, then the figures line, on stdout.
void print_run_table(ResultStore& store, const std::string& run_key, const RunCases& cases,
                     const std::vector<std::string>& paths, const RunFigures& figures) {
  std::vector<std::string> names;
  for (const auto& c : cases.selected) names.push_back(c.at("name").get<std::string>());
  std::fputs(format_run_table(store, run_key, names, paths).c_str(), stdout);
  std::puts(format_figures_line(figures).c_str());
  std::fflush(stdout);
}

// The lines the first worker's hello asks the run to say (the library a registry
// that names none surveys): once per run, however many workers load the registry.
void print_worker_notes(const nlohmann::json& hello) {
  auto notes = hello.find("notes");
  if (notes == hello.end() || !notes->is_array()) return;
  for (const auto& note : *notes) {
    if (note.is_string()) std::fprintf(stderr, "%s\n", note.get<std::string>().c_str());
  }
}

// Plans the tasks the store lacks, runs them on the supervisor's workers and
// prints the status table. `carries`: a baseline answers what the change left out.
RunFigures run_tasks(Supervisor& supervisor, ResultStore& store, const RunSetup& setup,
                     const RunCases& cases, const std::string& run_key,
                     const std::vector<std::string>& paths, bool retry_crashed, bool carries) {
  auto plan = plan_tasks(store, run_key, cases.selected, paths, retry_crashed);
  // Longest first from what is known: the store's earlier records over the baseline's.
  auto durations = overlay_durations(cases.baseline_durations, store.known_durations());
  Scheduler queue;
  size_t to_record = queue_tasks(plan.tasks, durations, queue);
  announce_run(setup, run_key, cases.selected.size(), plan);

  ProgressDisplay progress(stderr, isatty(STDERR_FILENO) != 0, to_record);
  double cpu_before = process_cpu_seconds();
  RunFigures figures;
  figures.stats = supervisor.run(queue, store, run_key, durations, progress);
  figures.supervisor_cpu_seconds = process_cpu_seconds() - cpu_before;
  progress.finish();
  figures.workers = setup.supervisor.jobs;
  figures.cases_ran = cases.selected.size();
  if (carries) figures.cases_carried = cases.shard_case_count - cases.selected.size();
  print_run_table(store, run_key, cases, paths, figures);
  return figures;
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

// After a run that was not interrupted: the snapshot and page (unless
// --no-merge), then the repro scripts' writer is waited for. Returns the exit code.
int finish_run(const RunCommandOptions& options, const RunSetup& setup, const std::string& run_key,
               std::optional<ReproWriter>& repro_writer, InterruptWatcher& interrupts) {
  // The writer catches up while merge runs.
  if (repro_writer) repro_writer->run_over();
  if (!options.no_merge) {
    std::filesystem::path out =
        options.out.empty() ? setup.store.parent_path() : std::filesystem::path(options.out);
    bool partial = setup.filter.shard.count > 1;
    bool by_change = setup.change_request.any();
    merge_and_render(setup.store, out, run_key, partial, by_change ? options.baseline : "");
  }
  if (!repro_writer) return 0;
  int code = repro_writer->finish(interrupts);
  if (code < 0) {
    std::fprintf(stderr, "capmap: interrupted; the repro scripts written so far are kept\n");
    return interrupts.exit_code();
  }
  if (code != 0) std::fprintf(stderr, "capmap: writing repro scripts failed (exit %d)\n", code);
  return 0;
}

void run_command(const RunCommandOptions& options, int& exit_code) {
  // Check everything the user typed before any process starts.
  RunSetup setup = check_run_options(options);
  // Without a change, a baseline only tells how long each case takes.
  std::optional<Baseline> baseline;
  if (!options.baseline.empty()) baseline.emplace(options.baseline);
  const Baseline* known = baseline ? &*baseline : nullptr;
  auto changed_files = named_changed_files(setup.change_request, setup.supervisor.python);

  InterruptWatcher interrupts;
  Supervisor supervisor(setup.supervisor, interrupts);
  auto hello = supervisor.start();
  if (!hello) {
    exit_code = interrupts.exit_code();
    return;
  }
  // Any path the worker's probes package announces; the warm-up readies those the run probes.
  const auto announced = announced_paths(*hello);
  const auto paths = choose_run_paths(setup.requested_paths, announced);
  check_paths_available(*hello, paths, setup.supervisor.python);
  supervisor.set_warm_up_paths(paths);

  RunCases cases = select_run_cases(hello->at("cases"), options, setup, known, paths);
  const nlohmann::json this_run = {{"library", hello->value("library", nlohmann::json::object())},
                                   {"versions", hello->value("versions", nlohmann::json::object())},
                                   {"settings", setup.supervisor.settings}};
  std::string run_key =
      compute_run_key(this_run["library"], this_run["versions"], setup.supervisor.settings);
  if (setup.change_request.any()) {
    narrow_to_change(cases, setup, known, this_run, std::move(changed_files), paths);
  }

  // Only now, with the registry loaded and the options valid, touch the store.
  auto store = ResultStore::open_for_writing(setup.store);
  store.begin_run(
      describe_run(*hello, options, setup, this_run, run_key, announced, paths, cases.asked));
  print_worker_notes(*hello);
  // --repro: scripts of the failing cells, written by a low-priority process as records arrive.
  std::optional<ReproWriter> repro_writer;
  if (options.repro) repro_writer.emplace(setup.supervisor.python, setup.store, run_key);

  const bool carries = known && setup.change_request.any();
  RunFigures figures =
      run_tasks(supervisor, store, setup, cases, run_key, paths, options.retry_crashed, carries);

  if (figures.stats.interrupt_exit_code != 0) {
    std::fprintf(stderr, "capmap: interrupted; records so far are kept in %s\n",
                 setup.store.c_str());
    exit_code = figures.stats.interrupt_exit_code;
    return;  // the repro writer stops; the scripts it wrote stay
  }
  exit_code = finish_run(options, setup, run_key, repro_writer, interrupts);
}

}  // namespace

namespace {

void add_selection_options(CLI::App* cmd, RunCommandOptions& o) {
  constexpr const char* kGroup = "Which cases";
  cmd->add_option("registry", o.registries,
                  "Registry: a .py file, a folder of them, or an importable module "
                  "(default: the bundled Kornia registry)")
      ->group(kGroup);
  cmd->add_option("--only", o.only,
                  "Run only cases whose name, name prefix or group matches (repeatable); "
                  "=NAME matches that name alone; a pattern that matches nothing is an error")
      ->allow_extra_args(false)
      ->group(kGroup);
  cmd->add_option("--tag", o.tags, "Run only cases carrying this tag (repeatable)")
      ->allow_extra_args(false)
      ->group(kGroup);
  cmd->add_flag(
         "--all", o.all,
         "Run every case (without REGISTRY, the default is the Kornia registry's cases "
         "tagged 'quick' unless --only or --tag is given; with REGISTRY arguments, all their "
         "cases)")
      ->group(kGroup);
  cmd->add_option("--paths", o.paths,
                  "Comma-separated paths to probe: any that `capmap list --paths` prints (default: "
                  "those it marks default: eager,onnx,export,compile)")
      ->group(kGroup);
  cmd->add_option("--shard", o.shard,
                  "Run only shard I of N (1-based, e.g. 2/4); each shard writes its own store")
      ->group(kGroup);
  cmd->add_option("--shard-by", o.shard_by,
                  "How --shard splits the cases: name (a hash of the name, the default) or "
                  "time (longest first by the --baseline's durations, so the shards finish "
                  "together)")
      ->capture_default_str()
      ->group(kGroup);
}

void add_change_options(CLI::App* cmd, RunCommandOptions& o) {
  constexpr const char* kGroup = "Changes and CI";
  cmd->add_option("--changed", o.changed,
                  "Run only the cases that executed one of these library files (recorded by an "
                  "earlier run), are defined in one of them, or are new or changed in the "
                  "registry; give REGISTRY arguments before this option")
      ->group(kGroup);
  cmd->add_option("--changed-since", o.changed_since,
                  "Like --changed, with the files `git diff --name-only REV` lists for the "
                  "checkout of the current folder")
      ->group(kGroup);
  cmd->add_flag("--by-function", o.by_function,
                "With --changed-since: of the cases that run a changed file, those whose "
                "functions the baseline recorded (the functions their eager call and captures "
                "entered) run only when one of them changed or names a changed function; this "
                "flag narrows the others too, by tracing their eager call again (in a forked "
                "child per case; code only a capture enters is then not seen: see README, "
                "\"Pull requests and CI\"). An edit outside the functions runs every case of "
                "the file")
      ->group(kGroup);
  cmd->add_flag("--by-file", o.by_file,
                "With --changed-since: run every case that runs a changed file, none narrowed "
                "by function")
      ->group(kGroup)
      ->excludes("--by-function");
  cmd->add_flag("--changed-auto", o.changed_auto,
                "Like --changed, with the library files whose installed content hashes "
                "differently from what the --baseline (else the store's last run) recorded: "
                "no git history needed")
      ->group(kGroup);
  cmd->add_option("--baseline", o.baseline,
                  "Snapshot of a full run: tells which files each case executes and how long "
                  "each takes (the longest start first, --shard-by time); with --changed the "
                  "cases it does not select are carried over from it into the snapshot")
      ->group(kGroup);
}

void add_capture_options(CLI::App* cmd, RunCommandOptions& o) {
  constexpr const char* kGroup = "Capture";
  cmd->add_option("--opset", o.opset, "ONNX opset for the onnx path")
      ->capture_default_str()
      ->check(CLI::PositiveNumber)
      ->group(kGroup);
  cmd->add_flag("--strict", o.strict, "Use torch.export strict mode for the export path")
      ->group(kGroup);
  cmd->add_flag("--no-flatten", o.no_flatten,
                "Capture each case's own inputs and result, library objects and all, instead of "
                "the tensors inside them")
      ->group(kGroup);
  cmd->add_option("--timeout", o.timeout,
                  "Time limit per path in seconds; a path that an earlier record (the "
                  "--baseline's or the store's) saw end in S seconds under it gets up to 10 x S, "
                  "at most 3 x this, for a slower machine or a colder compiler cache")
      ->capture_default_str()
      ->check(CLI::PositiveNumber)
      ->group(kGroup);
  cmd->add_option("--memory-limit", o.memory_limit,
                  "Memory limit per task (RSS of its whole process group), e.g. 8G, 512M")
      ->capture_default_str()
      ->group(kGroup);
}

void add_execution_options(CLI::App* cmd, RunCommandOptions& o) {
  constexpr const char* kGroup = "Execution";
  cmd->add_option("-j,--jobs", o.jobs,
                  "Tasks that run at once, each in its own forked child (default: number of cores)")
      ->check(CLI::PositiveNumber)
      ->group(kGroup);
  cmd->add_option("--workers", o.workers,
                  "Warm worker processes that fork the children of the --jobs slots; each pays "
                  "the import and compiler warm-up once (default 1)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1024))
      ->group(kGroup);
  cmd->add_flag("--fresh-children", o.fresh_children,
                "Fork a new child for every task. By default a child runs several tasks in a "
                "row while each leaves no trace (torch's and the library's names, settings, "
                "processes), which saves the fork and the re-warming of every task")
      ->group(kGroup);
  cmd->add_option("--python", o.python,
                  "Run the workers under this interpreter, e.g. ENV/bin/python of an environment "
                  "with another torch (`python -m capmap.make_env` makes one); records of each "
                  "environment go under their own run key, so one store holds several (default: "
                  "$CAPMAP_PYTHON, else the python3 beside capmap, else on PATH)")
      ->group(kGroup);
  cmd->add_option("--compile-cache", o.compile_cache,
                  "Keep inductor's compiled kernels and graphs in this folder, under a folder per "
                  "torch and capmap version, so the next run (a CI job that restores the folder) "
                  "compiles warm (default: $CAPMAP_COMPILE_CACHE, else a folder under the "
                  "system's temporary folder, reused by runs on the same machine)")
      ->group(kGroup);
  cmd->add_flag("--retry-crashed", o.retry_crashed,
                "Run again the paths whose stored record is 'crashed'")
      ->group(kGroup);
}

void add_output_options(CLI::App* cmd, RunCommandOptions& o) {
  constexpr const char* kGroup = "Output";
  cmd->add_option("--store", o.store, "Results store (SQLite file)")
      ->capture_default_str()
      ->group(kGroup);
  cmd->add_flag("--no-merge", o.no_merge, "Do not write snapshot.json and page.html after the run")
      ->group(kGroup);
  cmd->add_option("--out", o.out,
                  "Folder for snapshot.json and page.html (default: the store's folder)")
      ->group(kGroup);
  cmd->add_flag("--repro", o.repro,
                "Write a script that reproduces each failing case x path outside capmap into "
                "repro/ beside the store, as the run records the failures")
      ->group(kGroup);
}

}  // namespace

void add_run_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<RunCommandOptions>();
  auto* cmd = app.add_subcommand(
      "run",
      "Probe the cases of registries in parallel, isolated workers and store every outcome.");
  add_selection_options(cmd, *options);
  add_change_options(cmd, *options);
  add_capture_options(cmd, *options);
  add_execution_options(cmd, *options);
  add_output_options(cmd, *options);
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

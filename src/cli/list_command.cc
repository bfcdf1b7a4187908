// capmap list: the cases of registries, without running them.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "cli/commands.h"
#include "common/child_process.h"
#include "common/user_error.h"
#include "merge/baseline.h"
#include "merge/merge.h"
#include "run/change_replay.h"
#include "run/known_durations.h"
#include "run/longest_first.h"
#include "run/predicted_wall.h"
#include "run/python_locator.h"
#include "run/run_paths.h"
#include "run/shard_split.h"
#include "run/worker_event.h"
#include "selection/case_selection.h"
#include "selection/change_request.h"
#include "selection/change_selection.h"
#include "selection/function_changes.h"

namespace capmap {

namespace {

struct ListOptions {
  std::vector<std::string> registries;
  bool json = false;
  bool paths = false;
  // The plan of a run: which cases it would run, and how long it would take.
  std::vector<std::string> changed;
  std::string changed_since;
  bool changed_auto = false;
  bool by_function = false;
  bool by_file = false;
  std::string baseline;
  std::string store;
  int jobs = 0;
  std::string run_paths;
  std::vector<std::string> only;
  std::vector<std::string> tags;
  bool all = false;
  std::string shard;
  std::string shard_by = "name";
  std::string changes_from;  // a TSV of changes to replay against --baseline
  int matrix = 1;

  bool plans() const {
    return !changed.empty() || !changed_since.empty() || changed_auto || !baseline.empty() ||
           !shard.empty() || jobs > 0;
  }
};

// Asks a worker for the inventory: its `hello`, or the registry's error.
nlohmann::json load_inventory(const std::vector<std::string>& registries) {
  std::vector<std::string> argv = {locate_python(), "-m", "capmap.worker", "--list"};
  argv.insert(argv.end(), registries.begin(), registries.end());
  int exit_code = 0;
  std::string output = run_and_capture(argv, exit_code);
  // Cases may print while the registry imports: find the protocol line.
  size_t start = 0;
  while (start < output.size()) {
    size_t end = output.find('\n', start);
    if (end == std::string::npos) end = output.size();
    auto parsed = parse_worker_line(std::string_view(output).substr(start, end - start));
    start = end + 1;
    auto* event = std::get_if<WorkerEvent>(&parsed);
    if (event == nullptr) continue;
    if (event->type == WorkerEventType::kError) throw UserError(event->message);
    if (event->type == WorkerEventType::kHello) return std::move(event->body);
  }
  throw UserError(
      fmt::format("{} -m capmap.worker --list exited with code {} without listing "
                  "the cases (its output is above)",
                  argv[0], exit_code));
}

// One line per path the worker's probes package holds, in the page's order.
std::string format_paths(const std::vector<PathInfo>& paths) {
  size_t name_width = 4;
  for (const auto& p : paths) name_width = std::max(name_width, p.name.size());
  std::string out;
  for (const auto& p : paths) {
    std::string notes;
    if (p.reference) notes += " (the reference)";
    if (p.is_default) notes += " [default]";
    if (!p.builds_on.empty()) {
      std::string on;
      for (const auto& b : p.builds_on) on += (on.empty() ? "" : ", ") + b;
      notes += " [builds on " + on + "]";
    }
    out += fmt::format("{:<{}}  {}: {}{}\n", p.name, name_width, p.label, p.description, notes);
  }
  return out;
}

// The snapshot of the newest run a store holds, or nullopt.
std::optional<nlohmann::json> store_snapshot(const std::string& store) {
  std::error_code ec;
  if (store.empty() || !std::filesystem::exists(store, ec)) return std::nullopt;
  MergeOptions merge;
  merge.stores = {store};
  try {
    return build_snapshot(merge).snapshot;
  } catch (const UserError&) {
    return std::nullopt;
  }
}

// The cases `capmap run` with the same --only, --tag and --all would ask for.
std::vector<nlohmann::json> asked_cases(const ListOptions& options, const nlohmann::json& hello) {
  CaseFilter filter;
  filter.only = options.only;
  filter.tags = options.tags;
  const auto& inventory = hello.at("cases");
  use_default_tier(inventory, !options.registries.empty(), options.all, filter);
  return select_cases(inventory, filter);
}

// What a plain `capmap run` records of itself: the library, the versions and its settings.
nlohmann::json plain_run(const nlohmann::json& hello) {
  return {{"library", hello.value("library", nlohmann::json::object())},
          {"versions", hello.value("versions", nlohmann::json::object())},
          {"settings", {{"opset", 18}, {"export_strict", false}}}};
}

int job_count(const ListOptions& options) {
  return options.jobs > 0 ? options.jobs
                          : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

// `capmap list --changed ... --baseline SNAP --jobs N`: the cases `capmap run`
// with the same options would run (this shard's, with --shard), each with its
// expected seconds, and the wall the run should take on N jobs, longest first.
void plan_command(const ListOptions& options, const nlohmann::json& hello) {
  Shard shard;
  if (!options.shard.empty()) shard = parse_shard(options.shard);
  const ShardBy shard_by = parse_shard_by(options.shard_by);
  if (shard_by == ShardBy::kTime && options.baseline.empty()) {
    throw UserError(
        "--shard-by time: needs --baseline, so that every shard splits by the same durations");
  }
  ChangeRequest request{options.changed, options.changed_since, options.changed_auto,
                        options.by_function, options.by_file};
  auto changed_files = named_changed_files(request, locate_python());
  std::optional<Baseline> baseline;
  if (!options.baseline.empty()) baseline.emplace(options.baseline);
  auto previous = baseline ? std::nullopt : store_snapshot(options.store);

  const auto paths = choose_run_paths(split_path_list(options.run_paths), announced_paths(hello));
  auto cases = asked_cases(options, hello);
  const DurationTable baseline_durations =
      baseline ? snapshot_durations(baseline->snapshot()) : DurationTable{};
  if (request.any()) {
    const nlohmann::json* known = baseline   ? &baseline->snapshot()
                                  : previous ? &*previous
                                             : nullptr;
    nlohmann::json this_run = plain_run(hello);
    add_files_changed_by_hash(request, known, locate_python(),
                              this_run["library"].value("name", ""), changed_files);
    auto change = select_changed_cases(cases, known, this_run, changed_files.code, paths,
                                       changed_files.lines_moved);
    narrow_to_functions(change, request,
                        {locate_python(), options.registries, {}, job_count(options)},
                        changed_files.code);
    std::fprintf(stderr, "capmap: %s\n", describe_change_selection(change).c_str());
    cases = std::move(change.to_run);
  }
  DurationTable durations = baseline_durations;
  if (previous) durations = overlay_durations(durations, snapshot_durations(*previous));
  auto dispatched =
      dispatched_cases(shard_cases(cases, shard, shard_by, baseline_durations, paths));
  std::size_t unknown = 0;
  auto seconds = expected_case_seconds(dispatched, paths, durations, &unknown);
  const int jobs = job_count(options);
  auto packing = pack_longest_first(seconds, jobs);

  std::size_t name_width = 4;
  for (const auto& c : dispatched) name_width = std::max(name_width, c.value("name", "").size());
  std::string out = fmt::format("{:<{}}  {:>10}\n", "name", name_width, "expected_s");
  for (std::size_t i = 0; i < dispatched.size(); ++i) {
    auto known = case_seconds(dispatched[i].value("name", ""), paths, durations);
    out += fmt::format("{:<{}}  {:>10}\n", dispatched[i].value("name", ""), name_width,
                       known ? fmt::format("{:.1f}", *known) : std::string("?"));
  }
  double busy = 0;
  for (double s : seconds) busy += s;
  out += fmt::format("predicted: cases={} jobs={} wall_s={:.1f} busy_s={:.1f} unknown={}",
                     dispatched.size(), jobs, packing.wall(), busy, unknown);
  if (shard.count > 1) {
    // Every shard's wall on the same jobs, to see whether they finish together.
    std::string joined;
    for (double wall :
         shard_walls(cases, shard.count, shard_by, baseline_durations, durations, paths, jobs)) {
      joined += fmt::format("{}{:.1f}", joined.empty() ? "" : ",", wall);
    }
    out += fmt::format(" shard={}/{} shard_walls_s={}", shard.index, shard.count, joined);
  }
  out += "\n";
  std::fputs(out.c_str(), stdout);
}

// `capmap list --changes-from TSV --baseline SNAP`: every change of the stream,
// its selection and predicted wall, from one load of the registry.
void replay_command(const ListOptions& options, const nlohmann::json& hello) {
  if (options.baseline.empty()) {
    throw UserError("--changes-from: needs --baseline, the snapshot the changes are compared with");
  }
  auto changes = read_change_stream(options.changes_from);
  Baseline baseline(options.baseline);
  const auto paths = choose_run_paths(split_path_list(options.run_paths), announced_paths(hello));
  const int jobs = job_count(options);
  auto predictions = replay_changes(changes, asked_cases(options, hello), baseline.snapshot(),
                                    plain_run(hello), paths, jobs, std::max(1, options.matrix));
  std::fputs(replay_as_tsv(predictions, jobs, std::max(1, options.matrix)).c_str(), stdout);
}

void list_command(const ListOptions& options) {
  auto hello = load_inventory(options.registries);
  if (!options.changes_from.empty()) {
    replay_command(options, hello);
    return;
  }
  if (options.plans()) {
    plan_command(options, hello);
    return;
  }
  if (options.paths) {
    auto paths = announced_paths(hello);
    if (options.json) {
      std::puts(path_info_list_json(paths).dump(2).c_str());
    } else {
      std::fputs(format_paths(paths).c_str(), stdout);
    }
    return;
  }
  // --only and --tag narrow the listing as they narrow a run (a pattern that matches nothing is
  // refused the same way); without them every case is listed, the quick tier's too.
  const nlohmann::json cases = options.only.empty() && options.tags.empty()
                                   ? hello.at("cases")
                                   : nlohmann::json(asked_cases(options, hello));
  if (options.json) {
    nlohmann::json inventory = {{"library", hello.value("library", nlohmann::json::object())},
                                {"cases", cases},
                                {"excludes", hello.value("excludes", nlohmann::json::array())}};
    std::puts(inventory.dump(2).c_str());
    return;
  }
  size_t name_width = 4;
  size_t group_width = 5;
  for (const auto& c : cases) {
    name_width = std::max(name_width, c.value("name", "").size());
    group_width = std::max(group_width, c.value("group", "").size());
  }
  std::string out =
      fmt::format("{:<{}}  {:<{}}  {}\n", "name", name_width, "group", group_width, "skip");
  size_t skipped = 0;
  for (const auto& c : cases) {
    std::string skip;
    if (auto it = c.find("skip"); it != c.end() && it->is_string()) {
      skip = it->get<std::string>();
      ++skipped;
    }
    out += fmt::format("{:<{}}  {:<{}}  {}\n", c.value("name", ""), name_width,
                       c.value("group", ""), group_width, skip);
  }
  out += fmt::format("{} cases ({} skipped), {} excluded names\n", cases.size(), skipped,
                     hello.value("excludes", nlohmann::json::array()).size());
  std::fputs(out.c_str(), stdout);
}

}  // namespace

void add_list_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<ListOptions>();
  auto* cmd = app.add_subcommand("list", "List the cases of registries without running them.");
  cmd->add_option("registry", options->registries,
                  "Registry: a .py file, a folder of them, or an importable module "
                  "(default: the bundled Kornia registry)");
  cmd->add_flag("--json", options->json,
                "Print the inventory as JSON: {\"library\", \"cases\", \"excludes\"}");
  cmd->add_flag("--paths", options->paths,
                "Print the capture paths instead of the cases, one line each (name, label, what "
                "it does; [default] when `capmap run` probes it without --paths)");
  cmd->add_option("--changed", options->changed,
                  "List the cases `capmap run --changed FILE...` would run, with their expected "
                  "seconds and the predicted wall (give REGISTRY arguments before this option)");
  cmd->add_option("--changed-since", options->changed_since,
                  "Like --changed, with the files `git diff --name-only REV` lists");
  cmd->add_flag("--changed-auto", options->changed_auto,
                "Like --changed, with the library files whose installed content differs from "
                "what the --baseline recorded");
  cmd->add_flag("--by-function", options->by_function,
                "With --changed-since: also narrow the cases whose functions the baseline did not "
                "record, by tracing their eager call (see `capmap run --help`)");
  cmd->add_flag("--by-file", options->by_file,
                "With --changed-since: list every case that runs a changed file, none narrowed "
                "by function")
      ->excludes("--by-function");
  cmd->add_option("--baseline", options->baseline,
                  "Snapshot of a full run: the files each case executes and how long it takes");
  cmd->add_option("--store", options->store,
                  "Results store whose last run stands in for --baseline, and whose records add "
                  "durations")
      ->capture_default_str();
  cmd->add_option("-j,--jobs", options->jobs,
                  "Predict the wall on this many jobs (default: number of cores)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--run-paths", options->run_paths,
                  "Paths the run would probe, comma-separated (default: the default paths)");
  cmd->add_option("--only", options->only, "As `capmap run --only`")->allow_extra_args(false);
  cmd->add_option("--tag", options->tags, "As `capmap run --tag`")->allow_extra_args(false);
  cmd->add_flag("--all", options->all, "As `capmap run --all`");
  cmd->add_option("--shard", options->shard, "List shard I of N's cases (e.g. 2/4)");
  cmd->add_option("--shard-by", options->shard_by, "name or time, as `capmap run --shard-by`")
      ->capture_default_str();
  cmd->add_option("--changes-from", options->changes_from,
                  "Replay a stream of changes (a TSV whose first column names each change and "
                  "whose 'files' column lists its files, comma-separated) against --baseline: "
                  "one line per change with the cases `run --changed` would run and the "
                  "predicted wall");
  cmd->add_option("--matrix", options->matrix,
                  "With --changes-from: also predict the wall of the change split into this many "
                  "shard jobs (--shard-by time), each with --jobs")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->callback([options, &exit_code] {
    list_command(*options);
    exit_code = 0;
  });
}

}  // namespace capmap

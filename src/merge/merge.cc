#include "merge/merge.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <optional>

#include "common/atomic_file.h"
#include "common/path_info.h"
#include "common/user_error.h"
#include "merge/baseline.h"
#include "merge/cause_rules.h"
#include "merge/kornia_survey.h"
#include "merge/path_causes.h"
#include "merge/record_collection.h"
#include "merge/run_choice.h"
#include "merge/store_set.h"
#include "selection/run_selection.h"
#include "snapshot/snapshot_json.h"
#include "store/run_difference.h"

namespace capmap {
namespace {

CauseRules load_rules(const std::vector<std::filesystem::path>& files) {
  CauseRules rules;
  for (const auto& file : files) rules.add_file(read_file(file), file.string());
  rules.add_builtin();
  return rules;
}

// The run a merge reads, and the capture paths as its worker's plug-ins
// described them (none in stores from before they did).
struct ChosenRun {
  const StoredRun* run = nullptr;
  bool described = false;
  std::vector<PathInfo> path_infos;
  std::string note;  // set when the stores hold runs of several environments
};

ChosenRun choose(const std::vector<std::vector<StoredRun>>& runs_per_store,
                 const MergeOptions& options) {
  const RunChoice choice = choose_run(runs_per_store, options.run_key, options.versions,
                                      options.stores.front().string());
  ChosenRun chosen;
  chosen.run = choice.run;
  const nlohmann::json& info = chosen.run->info;
  chosen.described = info.contains("path_info");
  if (chosen.described) {
    chosen.path_infos = read_path_infos(info["path_info"], chosen.run->run_key + " runs.info");
  }
  if (choice.candidates > 1) {
    chosen.note = fmt::format(
        "the stores hold runs of {} environments; merged the newest, {} ({}); pick another "
        "with --run-key or --versions (e.g. torch=2.9.1)",
        choice.candidates, chosen.run->run_key, describe_environment(*chosen.run));
  }
  return chosen;
}

void add_baseline_paths(std::vector<std::string>& paths, const nlohmann::json& baseline_header) {
  auto listed = baseline_header.find("paths");
  if (listed == baseline_header.end() || !listed->is_array()) return;
  for (const auto& path : *listed) {
    if (!path.is_string()) continue;
    if (std::find(paths.begin(), paths.end(), path.get<std::string>()) == paths.end()) {
      paths.push_back(path.get<std::string>());
    }
  }
}

// The versions of packages only the baseline's environment has: its carried columns need them.
void add_baseline_versions(nlohmann::json& header, const nlohmann::json& baseline_header) {
  auto versions = baseline_header.find("versions");
  if (versions == baseline_header.end() || !versions->is_object()) return;
  nlohmann::json& ours = header["versions"];
  if (!ours.is_object()) return;
  for (const auto& [name, version] : versions->items()) {
    if (!version.is_null() && (!ours.contains(name) || ours[name].is_null())) ours[name] = version;
  }
}

nlohmann::json snapshot_header(const ChosenRun& chosen, const std::vector<std::string>& paths,
                               StoredInventory& inventory, std::size_t case_count,
                               std::size_t missing_count, const std::string& newest_record,
                               bool complete, bool gaps_carried) {
  const nlohmann::json& run_info = chosen.run->info;
  nlohmann::json excluded = nlohmann::json::array();
  for (auto& [name, info] : inventory.excludes) excluded.push_back(std::move(info));
  nlohmann::json header = {
      {"tool", std::string("capmap ") + CAPMAP_VERSION},
      {"library", run_info.value("library", nlohmann::json::object())},
      {"versions", run_info.value("versions", nlohmann::json::object())},
      {"settings", run_info.value("settings", nlohmann::json::object())},
      {"run_key", chosen.run->run_key},
      {"device", run_info.value("device", nlohmann::json())},
      {"cpu", run_info.value("cpu", nlohmann::json())},
      {"machine", run_info.value("machine", nlohmann::json())},
      {"cores", run_info.value("cores", nlohmann::json())},
      // Without SOURCE_DATE_EPOCH the newest record's time: re-merging the same
      // records gives the same bytes.
      {"generated_at",
       generation_time(newest_record.empty() ? chosen.run->created : newest_record)},
      {"complete", complete},
      {"missing", missing_count},
      {"paths", paths},
      {"excludes", excluded},
      {"coverage", run_info.value("coverage", nlohmann::json())},
      {"selection", nlohmann::json()},
  };
  if (chosen.described) {
    nlohmann::json info = nlohmann::json::object();
    for (const auto& path : paths)
      info[path] = path_info_json(describe_path(chosen.path_infos, path));
    header["path_info"] = std::move(info);
  }
  if (inventory.selections) {
    RunSelection selection = combine_selections(*inventory.selections);
    selection.cases = static_cast<long long>(case_count);
    // The shards that did not run are in the snapshot all the same, carried.
    if (gaps_carried) selection.shards.clear();
    header["selection"] = selection_to_json(selection);
  }
  return header;
}

}  // namespace

MergedSnapshot build_snapshot(const MergeOptions& options) {
  if (options.stores.empty()) throw UserError("merge: no store given (use --store PATH)");
  StoreList stores = open_stores(options.stores);
  const CauseRules rules = load_rules(options.rules);
  // Which run key: the one asked for, else the newest run whose environment passes the filter.
  std::vector<std::vector<StoredRun>> runs_per_store;
  for (const auto& store : stores) runs_per_store.push_back(store->runs());
  const ChosenRun chosen = choose(runs_per_store, options);
  const std::string key = chosen.run->run_key;
  const nlohmann::json& run_info = chosen.run->info;
  std::optional<Baseline> baseline;
  if (options.baseline) baseline.emplace(*options.baseline);
  // Results measured under other versions or settings are never carried over.
  const std::string baseline_difference =
      baseline ? version_difference(baseline->snapshot()["header"], run_info) : std::string();
  const bool carry = baseline && baseline_difference.empty();

  MergedSnapshot merged;
  merged.choice_note = chosen.note;
  auto& problems = merged.problems;
  const std::vector<bool> usable = stores_with_run(stores, runs_per_store, key, run_info, problems);
  // A shard no store holds is carried whole from the baseline; a record it lacks is missing.
  ShardCoverage shards = check_shards(stores, usable, key, carry, problems);
  StoredInventory inventory = read_inventory(stores, usable, key);
  std::vector<std::string>& paths = shards.paths;
  CollectedRecords records =
      collect_records(stores, usable, key, inventory, shards.shard_counts.empty(), paths, problems);
  // The baseline's columns stay: a run of one new path (ExecuTorch, in an environment of its
  // own) adds its column to the survey, and a run of the default paths keeps the others.
  if (carry) add_baseline_paths(paths, baseline->snapshot()["header"]);
  // eager first, then the capture paths in the order the page shows them.
  sort_paths(paths, chosen.path_infos);

  std::size_t missing_count = 0;
  nlohmann::json case_list = case_entries(inventory.cases, records, paths,
                                          carry ? &*baseline : nullptr, missing_count, problems);
  if (missing_count && !carry && baseline) {
    problems.push_back(fmt::format(
        "baseline {} was measured under other versions or settings ({}): nothing carried over",
        baseline->name(), baseline_difference));
  }
  classify_paths(case_list, rules, chosen.path_infos);

  nlohmann::json header =
      snapshot_header(chosen, paths, inventory, case_list.size(), missing_count, records.newest,
                      problems.empty(), carry && !shards.gaps.empty());
  if (carry) add_baseline_versions(header, baseline->snapshot()["header"]);
  merged.snapshot = {{"schema_version", 1}, {"header", header}, {"cases", std::move(case_list)}};
  return merged;
}

nlohmann::json merge_stores(const MergeOptions& options) {
  if (options.out.empty()) throw UserError("merge: no output file given (use --out PATH)");
  MergedSnapshot merged = build_snapshot(options);
  if (!merged.problems.empty() && !options.force) {
    std::string line = "merge refused: " + merged.problems.front();
    if (merged.problems.size() > 1) {
      line += fmt::format(" (and {} more problem{})", merged.problems.size() - 1,
                          merged.problems.size() > 2 ? "s" : "");
    }
    throw UserError(line);
  }
  // Said only of a merge that goes ahead: a refusal's one line names the keys itself.
  if (!merged.choice_note.empty()) std::fprintf(stderr, "merge: %s\n", merged.choice_note.c_str());
  if (options.kornia_json) {
    write_file_atomically(*options.kornia_json, snapshot_text(kornia_survey(merged.snapshot)));
  }
  write_file_atomically(options.out, snapshot_text(merged.snapshot));
  return std::move(merged.snapshot);
}

}  // namespace capmap

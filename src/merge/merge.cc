#include "merge/merge.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "common/atomic_file.h"
#include "common/path_info.h"
#include "common/user_error.h"
#include "merge/baseline.h"
#include "merge/cause_rules.h"
#include "merge/kornia_survey.h"
#include "merge/path_causes.h"
#include "merge/repro_marks.h"
#include "merge/run_choice.h"
#include "merge/store_reader.h"
#include "selection/run_selection.h"
#include "snapshot/snapshot_json.h"
#include "store/run_difference.h"

namespace capmap {
namespace {

constexpr std::size_t kNamedExamples = 5;

void add_path(std::vector<std::string>& paths, const std::string& path) {
  if (std::find(paths.begin(), paths.end(), path) == paths.end()) paths.push_back(path);
}

std::string join_examples(const std::vector<std::string>& items, std::size_t total) {
  std::string out;
  for (std::size_t i = 0; i < items.size() && i < kNamedExamples; ++i) {
    if (i) out += ", ";
    out += items[i];
  }
  if (total > kNamedExamples) out += fmt::format(" and {} more", total - kNamedExamples);
  return out;
}

// "torch 2.12.0 → 2.13.0, settings.opset 17 → 18": what separates two run keys.
std::string run_difference(const nlohmann::json& a, const nlohmann::json& b) {
  auto changes = environment_differences(a, b, kRunKeyLibraryFields);
  return changes.empty() ? "same versions" : join_examples(changes, changes.size());
}

struct ShardOwner {
  std::string store;
};

RunSelection as_run_selection(const StoredSelection& row) {
  RunSelection selection;
  selection.registry_cases = row.registry_cases;
  selection.cases = row.cases;
  selection.only = row.only;
  selection.tags = row.tags;
  if (row.shard_count > 1) selection.shards.push_back({row.shard, row.shard_count});
  return selection;
}

}  // namespace

MergedSnapshot build_snapshot(const MergeOptions& options) {
  if (options.stores.empty()) throw UserError("merge: no store given (use --store PATH)");
  std::vector<std::unique_ptr<StoreReader>> stores;
  std::set<std::filesystem::path> seen;
  for (const auto& file : options.stores) {
    auto canonical = std::filesystem::weakly_canonical(file);
    if (!seen.insert(canonical).second) {
      throw UserError(fmt::format("{}: store given twice", file.string()));
    }
    stores.push_back(std::make_unique<StoreReader>(file));
  }
  CauseRules rules;
  for (const auto& file : options.rules) rules.add_file(read_file(file), file.string());
  rules.add_builtin();

  // Which run key: the one asked for, else the newest run whose environment passes the filter.
  std::vector<std::vector<StoredRun>> runs_per_store;
  for (const auto& store : stores) runs_per_store.push_back(store->runs());
  const RunChoice choice = choose_run(runs_per_store, options.run_key, options.versions,
                                      options.stores.front().string());
  const StoredRun* chosen = choice.run;
  const std::string key = chosen->run_key;
  const nlohmann::json run_info = chosen->info;
  // The paths as the worker's plug-ins described them; none in stores from before.
  const bool described = run_info.contains("path_info");
  const std::vector<PathInfo> path_infos =
      described ? read_path_infos(run_info["path_info"], chosen->run_key + " runs.info")
                : std::vector<PathInfo>{};
  std::optional<Baseline> baseline;
  if (options.baseline) baseline.emplace(*options.baseline);

  MergedSnapshot merged;
  if (choice.candidates > 1) {
    merged.choice_note = fmt::format(
        "the stores hold runs of {} environments; merged the newest, {} ({}); pick another "
        "with --run-key or --versions (e.g. torch=2.9.1)",
        choice.candidates, chosen->run_key, describe_environment(*chosen));
  }
  std::vector<bool> usable(stores.size(), false);
  for (std::size_t i = 0; i < stores.size(); ++i) {
    const auto& runs = runs_per_store[i];
    usable[i] =
        std::any_of(runs.begin(), runs.end(), [&](const StoredRun& r) { return r.run_key == key; });
    if (usable[i]) continue;
    const StoredRun* other = nullptr;
    for (const auto& run : runs) {
      if (!other || run.created > other->created) other = &run;
    }
    merged.problems.push_back(
        other ? fmt::format("records come from different run keys: {} holds run {} ({}), not {}",
                            stores[i]->file().string(), other->run_key,
                            run_difference(other->info, run_info), key)
              : fmt::format("{}: store holds no run", stores[i]->file().string()));
  }

  // Shards: one split, each shard once, none missing.
  std::vector<std::string> paths;
  std::map<std::pair<int, int>, std::string> shard_owner;
  std::set<int> shard_counts;
  for (std::size_t i = 0; i < stores.size(); ++i) {
    if (!usable[i]) continue;
    for (const auto& shard : stores[i]->shards(key)) {
      for (const auto& path : shard.paths) add_path(paths, path);
      shard_counts.insert(shard.shard_count);
      auto [it, fresh] = shard_owner.emplace(std::make_pair(shard.shard_count, shard.shard),
                                             stores[i]->file().string());
      if (!fresh) {
        merged.problems.push_back(fmt::format("shards overlap: shard {}/{} is in both {} and {}",
                                              shard.shard, shard.shard_count, it->second,
                                              stores[i]->file().string()));
      }
    }
  }
  if (shard_counts.size() > 1) {
    std::vector<std::string> splits;
    for (int n : shard_counts) splits.push_back(fmt::format("{}", n));
    merged.problems.push_back(
        fmt::format("shards overlap: the stores split the run into different shard counts ({})",
                    join_examples(splits, splits.size())));
  } else if (shard_counts.size() == 1) {
    int count = *shard_counts.begin();
    std::vector<std::string> gaps;
    for (int s = 1; s <= count; ++s) {
      if (!shard_owner.count({count, s})) gaps.push_back(fmt::format("{}/{}", s, count));
    }
    if (!gaps.empty()) {
      merged.problems.push_back(fmt::format("shards leave a gap: {} of {} missing ({})",
                                            gaps.size(), count, join_examples(gaps, gaps.size())));
    }
  }

  // Inventory and excludes: every store holds the whole inventory.
  std::map<std::string, nlohmann::json> cases;
  std::map<std::string, nlohmann::json> excludes;
  // What the runs were asked for; unknown when any store predates the record.
  std::optional<std::vector<RunSelection>> selections(std::in_place);
  for (std::size_t i = 0; i < stores.size(); ++i) {
    if (!usable[i]) continue;
    auto stored = stores[i]->selections(key);
    if (!stored || stored->empty()) selections.reset();
    if (selections) {
      for (const auto& row : *stored) selections->push_back(as_run_selection(row));
    }
    for (auto& info : stores[i]->cases(key)) {
      if (!info.is_object() || !info.contains("name") || !info["name"].is_string()) {
        throw UserError(
            fmt::format("{}: a case of run {} has no name", stores[i]->file().string(), key));
      }
      std::string name = info["name"];
      info.erase("paths");
      cases.emplace(name, std::move(info));
    }
    for (auto& info : stores[i]->excludes(key)) {
      if (info.is_object() && info.contains("name"))
        excludes.emplace(info["name"].dump(), std::move(info));
    }
  }

  // Records.
  std::map<std::string, std::map<std::string, nlohmann::json>> records;
  std::map<std::pair<std::string, std::string>, std::string> recorded_in;
  std::vector<std::string> overlaps;
  std::size_t overlap_count = 0;
  std::string newest_record;
  for (std::size_t i = 0; i < stores.size(); ++i) {
    if (!usable[i]) continue;
    const std::string store_name = stores[i]->file().string();
    const auto repro_marks = stores[i]->repro(key);
    stores[i]->for_each_record(key, [&](RecordRow&& rec) {
      if (!cases.count(rec.case_name)) return;  // case left the registry; nothing to show
      auto [it, fresh] = recorded_in.emplace(std::make_pair(rec.case_name, rec.path), store_name);
      if (!fresh) {
        if (overlaps.size() < kNamedExamples) {
          overlaps.push_back(fmt::format("{} {}", rec.case_name, rec.path));
        }
        ++overlap_count;
        return;
      }
      if (shard_counts.empty()) add_path(paths, rec.path);
      newest_record = std::max(newest_record, rec.created);
      // A repro verdict counts only for the record it checked, not for a newer one.
      auto mark = repro_marks.find({rec.case_name, rec.path});
      if (mark != repro_marks.end() && mark->second.record_created == rec.created) {
        add_repro_fields(rec.record, mark->second);
      }
      records[rec.case_name].emplace(rec.path, std::move(rec.record));
    });
  }
  // eager first, then the capture paths in the order the page shows them.
  sort_paths(paths, path_infos);
  if (overlap_count) {
    merged.problems.push_back(
        fmt::format("shards overlap: {} case × path records are in more than one store ({})",
                    overlap_count, join_examples(overlaps, overlap_count)));
  }

  // Every case × path needs a record; a skipped case is answered by its reason.
  std::vector<std::string> missing;
  std::size_t missing_count = 0;
  // Results measured under other versions or settings are never carried over.
  const std::string baseline_difference =
      baseline ? version_difference(baseline->snapshot()["header"], run_info) : std::string();
  const bool carry = baseline && baseline_difference.empty();
  nlohmann::json case_list = nlohmann::json::array();
  for (auto& [name, info] : cases) {
    std::optional<std::string> skip;
    if (info.contains("skip") && info["skip"].is_string()) skip = info["skip"].get<std::string>();
    nlohmann::json entry = std::move(info);
    nlohmann::json& entry_paths = entry["paths"] = nlohmann::json::object();
    auto& found = records[name];
    for (const auto& path : paths) {
      auto it = found.find(path);
      if (it != found.end()) {
        entry_paths[path] = std::move(it->second);
      } else if (skip) {
        entry_paths[path] = {{"status", "skipped"}, {"message", *skip}, {"seconds", 0}};
      } else if (auto carried = carry ? baseline->carried_record(name, path) : std::nullopt) {
        entry_paths[path] = std::move(*carried);
      } else {
        if (missing.size() < kNamedExamples) missing.push_back(fmt::format("{} {}", name, path));
        ++missing_count;
        entry_paths[path] = {{"status", "missing"},
                             {"message", "no record: this case × path was not measured"}};
      }
    }
    // The library files the eager call ran: the case's, not the path's (see run --changed).
    if (auto eager = entry_paths.find("eager"); eager != entry_paths.end()) {
      if (eager->contains("files")) {
        entry["files"] = std::move((*eager)["files"]);
        eager->erase("files");
      } else if (const nlohmann::json* known = carry ? baseline->find_case(name) : nullptr;
                 known && eager->value("carried", false) && known->contains("files")) {
        entry["files"] = (*known)["files"];
      }
    }
    case_list.push_back(std::move(entry));
  }
  if (missing_count) {
    merged.problems.push_back(fmt::format(
        "{} of {} case × path records missing ({}); finish the run or merge with --force",
        missing_count, cases.size() * paths.size(), join_examples(missing, missing_count)));
    if (!carry && baseline) {
      merged.problems.push_back(fmt::format(
          "baseline {} was measured under other versions or settings ({}): nothing carried over",
          baseline->name(), baseline_difference));
    }
  }
  classify_paths(case_list, rules, path_infos);

  nlohmann::json excluded = nlohmann::json::array();
  for (auto& [name, info] : excludes) excluded.push_back(std::move(info));
  nlohmann::json header = {
      {"tool", std::string("capmap ") + CAPMAP_VERSION},
      {"library", run_info.value("library", nlohmann::json::object())},
      {"versions", run_info.value("versions", nlohmann::json::object())},
      {"settings", run_info.value("settings", nlohmann::json::object())},
      {"run_key", key},
      {"device", run_info.value("device", nlohmann::json())},
      {"cpu", run_info.value("cpu", nlohmann::json())},
      {"cores", run_info.value("cores", nlohmann::json())},
      // Without SOURCE_DATE_EPOCH the newest record's time: re-merging the same
      // records gives the same bytes.
      {"generated_at", generation_time(newest_record.empty() ? chosen->created : newest_record)},
      {"complete", merged.problems.empty()},
      {"missing", missing_count},
      {"paths", paths},
      {"excludes", excluded},
      {"coverage", run_info.value("coverage", nlohmann::json())},
      {"selection", nlohmann::json()},
  };
  if (described) {
    nlohmann::json info = nlohmann::json::object();
    for (const auto& path : paths) info[path] = path_info_json(describe_path(path_infos, path));
    header["path_info"] = std::move(info);
  }
  if (selections) {
    RunSelection selection = combine_selections(*selections);
    selection.cases = static_cast<long long>(case_list.size());
    header["selection"] = selection_to_json(selection);
  }
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

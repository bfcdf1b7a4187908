#include "merge/record_collection.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <utility>

#include "merge/case_code.h"
#include "merge/named_examples.h"
#include "merge/repro_marks.h"

namespace capmap {

CollectedRecords collect_records(const StoreList& stores, const std::vector<bool>& usable,
                                 const std::string& run_key, const StoredInventory& inventory,
                                 bool paths_from_records, std::vector<std::string>& paths,
                                 std::vector<std::string>& problems) {
  CollectedRecords collected;
  std::map<std::pair<std::string, std::string>, std::string> recorded_in;
  std::vector<std::string> overlaps;
  std::size_t overlap_count = 0;
  for (std::size_t i = 0; i < stores.size(); ++i) {
    if (!usable[i]) continue;
    const std::string store_name = stores[i]->file().string();
    const auto repro_checks = stores[i]->repro_checks(run_key);
    stores[i]->for_each_record(run_key, [&](RecordRow&& rec) {
      if (!inventory.cases.count(rec.case_name)) return;  // left the registry; nothing to show
      auto [it, fresh] = recorded_in.emplace(std::make_pair(rec.case_name, rec.path), store_name);
      if (!fresh) {
        if (overlaps.size() < kNamedExamples) {
          overlaps.push_back(fmt::format("{} {}", rec.case_name, rec.path));
        }
        ++overlap_count;
        return;
      }
      if (paths_from_records && std::find(paths.begin(), paths.end(), rec.path) == paths.end()) {
        paths.push_back(rec.path);
      }
      collected.newest = std::max(collected.newest, rec.created);
      // A repro verdict counts only for the record it checked, not for a newer one.
      auto check = repro_checks.find({rec.case_name, rec.path});
      if (check != repro_checks.end() && check->second.record_created == rec.created) {
        add_repro_fields(rec.record, check->second);
      }
      collected.by_case[rec.case_name].emplace(rec.path, std::move(rec.record));
    });
  }
  if (overlap_count) {
    problems.push_back(
        fmt::format("shards overlap: {} case × path records are in more than one store ({})",
                    overlap_count, join_examples(overlaps, overlap_count)));
  }
  return collected;
}

nlohmann::json case_entries(std::map<std::string, nlohmann::json>& cases, CollectedRecords& records,
                            const std::vector<std::string>& paths, const Baseline* carry_from,
                            std::size_t& missing_count, std::vector<std::string>& problems) {
  std::vector<std::string> missing;
  missing_count = 0;
  nlohmann::json case_list = nlohmann::json::array();
  for (auto& [name, info] : cases) {
    std::optional<std::string> skip;
    if (info.contains("skip") && info["skip"].is_string()) skip = info["skip"].get<std::string>();
    nlohmann::json entry = std::move(info);
    nlohmann::json& entry_paths = entry["paths"] = nlohmann::json::object();
    auto& found = records.by_case[name];
    for (const auto& path : paths) {
      auto it = found.find(path);
      if (it != found.end()) {
        entry_paths[path] = std::move(it->second);
      } else if (skip) {
        entry_paths[path] = {{"status", "skipped"}, {"message", *skip}, {"seconds", 0}};
      } else if (auto carried =
                     carry_from ? carry_from->carried_record(name, path) : std::nullopt) {
        entry_paths[path] = std::move(*carried);
      } else {
        if (missing.size() < kNamedExamples) missing.push_back(fmt::format("{} {}", name, path));
        ++missing_count;
        entry_paths[path] = {{"status", "missing"},
                             {"message", "no record: this case × path was not measured"}};
      }
    }
    gather_case_code(entry, name, carry_from);
    case_list.push_back(std::move(entry));
  }
  if (missing_count) {
    problems.push_back(fmt::format(
        "{} of {} case × path records missing ({}); finish the run or merge with --force",
        missing_count, cases.size() * paths.size(), join_examples(missing, missing_count)));
  }
  return case_list;
}

}  // namespace capmap

#include "merge/cause_summary.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "merge/failure_signature.h"

namespace capmap {
namespace {

bool is_failure(const std::string& page_status) {
  return page_status == "fail" || page_status == "mismatch" || page_status == "specialized" ||
         page_status == "crashed" || page_status == "timeout" || page_status == "oom";
}

void count_unclassified(std::map<std::string, UnclassifiedGroup>& groups, const std::string& name,
                        const std::string& path, const std::string& message, bool graph_break) {
  std::string signature = failure_signature(message);
  auto& group = groups[signature];
  if (graph_break) ++group.break_count;
  if (group.count++ == 0) {
    group.signature = signature;
    group.example_case = name;
    group.example_path = path;
    group.example_message = message;
  }
}

}  // namespace

CauseSummary summarise_causes(const nlohmann::json& cases) {
  CauseSummary summary;
  std::map<std::pair<std::string, std::string>, std::size_t> counts;
  std::map<std::string, UnclassifiedGroup> groups;
  for (const auto& entry : cases) {
    const std::string name = entry.value("name", "");
    const nlohmann::json paths = entry.value("paths", nlohmann::json::object());
    for (const auto& [path, record] : paths.items()) {
      std::string shown = record.value("page_status", "");
      if (is_failure(shown)) {
        ++summary.failures;
        std::string category = record.value("category", "unclassified");
        ++counts[{category, record.value("cause", "")}];
        if (category == "unclassified") {
          ++summary.unclassified;
          count_unclassified(groups, name, path, record.value("message", ""), false);
        }
      }
      for (const auto& reason : record.value("break_reasons", nlohmann::json::array())) {
        if (!reason.is_object()) continue;
        ++summary.break_reasons;
        if (reason.value("category", "") == "unclassified") {
          ++summary.unclassified_breaks;
          count_unclassified(groups, name, path + " (graph break)", reason.value("reason", ""),
                             true);
        }
      }
    }
  }
  for (const auto& [key, count] : counts) summary.causes.push_back({key.first, key.second, count});
  std::stable_sort(summary.causes.begin(), summary.causes.end(),
                   [](const CauseCount& a, const CauseCount& b) {
                     return std::tie(a.category, b.count) < std::tie(b.category, a.count);
                   });
  for (auto& [signature, group] : groups) summary.unclassified_groups.push_back(std::move(group));
  std::stable_sort(
      summary.unclassified_groups.begin(), summary.unclassified_groups.end(),
      [](const UnclassifiedGroup& a, const UnclassifiedGroup& b) { return a.count > b.count; });
  return summary;
}

}  // namespace capmap

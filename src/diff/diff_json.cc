#include <nlohmann/json.hpp>

#include "diff/change_sections.h"
#include "diff/diff_report.h"

namespace capmap {

nlohmann::json diff_as_json(const SnapshotDiff& diff) {
  nlohmann::json out = nlohmann::json::object();
  nlohmann::json header = nlohmann::json::array();
  for (const auto& h : diff.header) {
    header.push_back({{"key", h.key}, {"old", h.old_value}, {"new", h.new_value}});
  }
  out["header"] = std::move(header);
  out["selection_note"] =
      diff.selection_note.empty() ? nlohmann::json() : nlohmann::json(diff.selection_note);
  nlohmann::json counts = nlohmann::json::object();
  for (const auto& section : kChangeSections) {
    // Those two only happen against Kornia's file; a snapshot diff keeps its keys.
    bool kornia_only =
        section.kind == ChangeKind::kConfigDiffers || section.kind == ChangeKind::kProbedOnOneSide;
    if (kornia_only && !diff.pairing) continue;
    nlohmann::json items = nlohmann::json::array();
    for (const auto& c : diff.changes) {
      if (c.kind != section.kind) continue;
      if (c.kind == ChangeKind::kConfigDiffers) {
        items.push_back({{"case", c.case_name}, {"old_case", c.old_name}, {"detail", c.detail}});
        continue;
      }
      if (c.path.empty()) {
        items.push_back(c.case_name);
        continue;
      }
      nlohmann::json item = {{"case", c.case_name},        {"path", c.path},
                             {"old_status", c.old_status}, {"new_status", c.new_status},
                             {"old_cause", c.old_cause},   {"new_cause", c.new_cause}};
      if (!c.old_name.empty()) item["old_case"] = c.old_name;
      if (c.kind == ChangeKind::kSlowTimeout) {
        item["old_seconds"] = c.old_seconds.value_or(0);
        item["new_limit_seconds"] = c.new_limit_seconds.value_or(0);
      }
      if (c.kind == ChangeKind::kBreaksChanged) {
        item["old_graph_breaks"] = c.old_breaks ? nlohmann::json(*c.old_breaks) : nlohmann::json();
        item["new_graph_breaks"] = c.new_breaks ? nlohmann::json(*c.new_breaks) : nlohmann::json();
      }
      items.push_back(std::move(item));
    }
    counts[section.json_key] = items.size();
    out[section.json_key] = std::move(items);
  }
  out["counts"] = std::move(counts);
  nlohmann::json by_path = nlohmann::json::object();
  for (const auto& [path, n] : regressions_and_fixes_by_path(diff)) {
    by_path[path] = {{"regressions", n.first}, {"fixes", n.second}};
  }
  out["by_path"] = std::move(by_path);
  if (diff.pairing) {
    const auto& p = *diff.pairing;
    out["pairing"] = {{"old_label", p.old_label},
                      {"new_label", p.new_label},
                      {"old_cases", p.old_cases},
                      {"new_cases", p.new_cases},
                      {"pairs", p.pairs},
                      {"old_probed", p.old_probed},
                      {"old_probed_paired", p.old_probed_paired},
                      {"new_probed", p.new_probed},
                      {"new_probed_paired", p.new_probed_paired}};
    nlohmann::json agreement = nlohmann::json::object();
    for (const auto& [path, a] : p.agreement) {
      agreement[path] = {{"compared", a.compared},
                         {"same_status", a.same_status},
                         {"same_captured_status", a.same_captured_status},
                         {"same_verdict", a.same_verdict}};
    }
    out["pairing"]["agreement"] = std::move(agreement);
  }
  return out;
}

}  // namespace capmap

#include "merge/path_causes.h"

#include <fmt/format.h>

#include <string>

#include "merge/page_status.h"

namespace capmap {
namespace {

std::string text_field(const nlohmann::json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

void classify_breaks(nlohmann::json& record, const std::string& path, const std::string& status,
                     const CauseRules& rules) {
  auto breaks = record.find("break_reasons");
  if (breaks == record.end() || !breaks->is_array()) return;
  for (auto& reason : *breaks) {
    if (!reason.is_object()) continue;
    std::string text = text_field(reason, "reason");
    std::string gb_id = text_field(reason, "gb_id");
    Cause cause = rules.classify({path, status, "", gb_id, text});
    // The path captured: an unexplained break is still a break, never a failure.
    if (cause.category == "unclassified") {
      cause.text = gb_id.empty() ? "Unclassified graph break"
                                 : fmt::format("Unclassified graph break ({})", gb_id);
    }
    reason["cause"] = cause.text;
    reason["category"] = cause.category;
    if (!cause.remedy.empty()) reason["remedy"] = cause.remedy;
  }
}

std::string shown_status(const std::vector<PathInfo>& paths, const std::string& path,
                         const std::string& status) {
  for (const PathInfo& info : paths) {
    if (info.name != path) continue;
    if (auto it = info.statuses.find(status); it != info.statuses.end()) return it->second;
  }
  return page_status(status);
}

}  // namespace

std::vector<PathInfo> snapshot_path_infos(const nlohmann::json& snapshot) {
  auto header = snapshot.find("header");
  if (header == snapshot.end() || !header->is_object()) return {};
  auto info = header->find("path_info");
  return info == header->end() ? std::vector<PathInfo>{}
                               : read_path_infos(*info, "snapshot header 'path_info'");
}

void classify_paths(nlohmann::json& cases, const CauseRules& rules,
                    const std::vector<PathInfo>& path_infos) {
  for (auto& entry : cases) {
    auto paths = entry.find("paths");
    if (paths == entry.end() || !paths->is_object()) continue;
    for (auto& [path, record] : paths->items()) {
      if (!record.is_object()) continue;
      std::string status = text_field(record, "status");
      std::string shown = shown_status(path_infos, path, status);
      record["page_status"] = shown;
      classify_breaks(record, path, status, rules);
      record.erase("cause");
      record.erase("category");
      record.erase("remedy");
      std::string message = text_field(record, "message");
      if (shown == "ok") {
        record.erase("detail");
        continue;
      }
      record["detail"] = message;
      if (shown == "ok-breaks") {
        // A path that captured with breaks is explained by its first break.
        const auto& breaks = record.value("break_reasons", nlohmann::json::array());
        if (!breaks.empty() && breaks[0].is_object() && breaks[0].contains("cause")) {
          record["cause"] = breaks[0]["cause"];
          record["category"] = breaks[0]["category"];
          if (breaks[0].contains("remedy")) record["remedy"] = breaks[0]["remedy"];
          record["detail"] = text_field(breaks[0], "reason");
        }
        continue;
      }
      if (shown == "ok-unverified" && message.empty()) continue;
      if (status == "missing") {
        record["cause"] = "Not measured: no record in the merged stores";
        record["category"] = "not-applicable";
        continue;
      }
      Cause cause = rules.classify(
          {path, status, text_field(record, "error_type"), text_field(record, "gb_id"), message});
      record["cause"] = cause.text;
      record["category"] = cause.category;
      if (!cause.remedy.empty()) record["remedy"] = cause.remedy;
    }
  }
}

}  // namespace capmap

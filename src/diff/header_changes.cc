#include "diff/header_changes.h"

#include <fmt/format.h>

#include <map>
#include <optional>
#include <set>
#include <string>

namespace capmap {
namespace {

// Objects become dotted keys; arrays and scalars are compared as a whole.
void flatten(const nlohmann::json& value, const std::string& prefix,
             std::map<std::string, std::string>& out) {
  if (value.is_object()) {
    for (const auto& [key, child] : value.items()) {
      flatten(child, prefix.empty() ? key : prefix + "." + key, out);
    }
    return;
  }
  out[prefix] = value.is_string() ? value.get<std::string>() : value.dump();
}

// The header as diff compares it: each excluded name is its own entry (`excludes.NAME` → its
// reason), so a registry edit that only moves the lines the excludes are written on is no change,
// and a change names the exclusion instead of repeating the whole list.
nlohmann::json comparable_header(const nlohmann::json& header) {
  nlohmann::json out = header;
  auto it = out.find("excludes");
  if (it == out.end() || !it->is_array()) return out;
  nlohmann::json by_name = nlohmann::json::object();
  for (const auto& e : *it) {
    if (e.is_object() && e.contains("name") && e["name"].is_string()) {
      by_name[e["name"].get<std::string>()] = e.value("reason", "");
    }
  }
  *it = std::move(by_name);
  return out;
}

// A header value as a reader sees it in a table: long ones end with how long they are.
std::string shown_value(const std::string& value) {
  constexpr std::size_t kLongest = 200;
  if (value.size() <= kLongest) return value;
  std::size_t cut = kLongest;
  while (cut > 0 && (static_cast<unsigned char>(value[cut]) & 0xC0) == 0x80) --cut;  // UTF-8
  return value.substr(0, cut) + fmt::format("… ({} characters)", value.size());
}

}  // namespace

std::vector<HeaderChange> header_changes(const nlohmann::json& old_header_json,
                                         const nlohmann::json& new_header_json,
                                         bool no_common_path) {
  std::vector<HeaderChange> changes;
  std::map<std::string, std::string> old_header, new_header;
  flatten(comparable_header(old_header_json), "", old_header);
  flatten(comparable_header(new_header_json), "", new_header);
  std::set<std::string> keys;
  for (const auto& [k, v] : old_header) keys.insert(k);
  for (const auto& [k, v] : new_header) keys.insert(k);
  // Kornia's file knows a few header fields and words causes its own way: only
  // what both sides say, and statuses, are compared.
  const bool kornia_side = old_header_json.contains("layout") || new_header_json.contains("layout");
  // A path only one side describes is one line (its label), not one per field it declares.
  auto described = [](const nlohmann::json& header) {
    std::map<std::string, std::string> labels;
    auto info = header.find("path_info");
    if (info == header.end() || !info->is_object()) return labels;
    for (const auto& [path, fields] : info->items()) {
      labels[path] = fields.is_object() ? fields.value("label", path) : path;
    }
    return labels;
  };
  const auto old_paths = described(old_header_json), new_paths = described(new_header_json);
  auto one_sided = [&](const std::string& key) -> std::optional<std::string> {
    if (!key.starts_with("path_info.")) return std::nullopt;
    std::string path = key.substr(10, key.find('.', 10) - 10);
    if (old_paths.count(path) == new_paths.count(path)) return std::nullopt;
    return path;
  };
  std::set<std::string> whole_paths;
  for (const auto& key : keys) {
    if (auto path = one_sided(key); path && !kornia_side && whole_paths.insert(*path).second) {
      auto o = old_paths.find(*path), n = new_paths.find(*path);
      changes.push_back({"path_info." + *path, o != old_paths.end() ? o->second : "(none)",
                         n != new_paths.end() ? n->second : "(none)"});
    }
  }
  for (const auto& key : keys) {
    if (one_sided(key)) continue;
    if (key == "generated_at") continue;  // differs on every merge
    // The selection is one line below, in the words the pages use.
    if (key == "selection" || key.starts_with("selection.")) continue;
    auto o = old_header.find(key);
    auto n = new_header.find(key);
    if (kornia_side && (o == old_header.end() || n == new_header.end())) continue;
    // That file has no eager column: its paths differ from a run's unless no path is shared.
    if (kornia_side && key == "paths" && !no_common_path) continue;
    std::string before = o != old_header.end() ? o->second : "(none)";
    std::string after = n != new_header.end() ? n->second : "(none)";
    if (before != after) changes.push_back({key, shown_value(before), shown_value(after)});
  }
  return changes;
}

}  // namespace capmap

#include "selection/case_selection.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/user_error.h"

namespace capmap {

namespace {

bool has_tag(const nlohmann::json& c, const std::string& tag) {
  auto tags = c.find("tags");
  if (tags == c.end() || !tags->is_array()) return false;
  return std::any_of(tags->begin(), tags->end(),
                     [&](const nlohmann::json& t) { return t.is_string() && t == tag; });
}

}  // namespace

bool name_matches_pattern(const std::string& name, const std::string& pattern) {
  if (pattern.starts_with('=')) return name == std::string_view(pattern).substr(1);
  return name.starts_with(pattern);
}

bool case_matches_pattern(const nlohmann::json& c, const std::string& pattern) {
  if (name_matches_pattern(c.value("name", ""), pattern)) return true;
  if (pattern.starts_with('=')) return false;  // a name, exactly
  std::string group = c.value("group", "");
  return group == pattern || group.starts_with(pattern + ".");
}

void use_default_tier(const nlohmann::json& inventory, bool registries_given, bool all,
                      CaseFilter& filter) {
  if (registries_given || all || !filter.only.empty() || !filter.tags.empty()) return;
  bool has_quick = std::any_of(inventory.begin(), inventory.end(),
                               [](const nlohmann::json& c) { return has_tag(c, "quick"); });
  if (has_quick) filter.tags = {"quick"};
}

std::vector<nlohmann::json> select_cases(const nlohmann::json& inventory,
                                         const CaseFilter& filter) {
  for (const auto& pattern : filter.only) {
    bool any = std::any_of(inventory.begin(), inventory.end(), [&](const nlohmann::json& c) {
      return case_matches_pattern(c, pattern);
    });
    if (!any) {
      throw UserError(
          fmt::format("--only '{}': matches no case name, name prefix or group", pattern));
    }
  }
  for (const auto& tag : filter.tags) {
    bool any = std::any_of(inventory.begin(), inventory.end(),
                           [&](const nlohmann::json& c) { return has_tag(c, tag); });
    if (!any) throw UserError(fmt::format("--tag '{}': no case carries this tag", tag));
  }
  std::vector<nlohmann::json> selected;
  for (const auto& c : inventory) {
    if (!filter.only.empty() &&
        std::none_of(filter.only.begin(), filter.only.end(),
                     [&](const std::string& p) { return case_matches_pattern(c, p); })) {
      continue;
    }
    if (!filter.tags.empty() && std::none_of(filter.tags.begin(), filter.tags.end(),
                                             [&](const std::string& t) { return has_tag(c, t); })) {
      continue;
    }
    if (!shard_owns(filter.shard, c.value("name", ""))) continue;
    selected.push_back(c);
  }
  return selected;
}

}  // namespace capmap

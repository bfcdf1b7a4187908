#pragma once
// Which cases of the inventory a run covers: --only patterns, --tag, shard.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "selection/shard.h"

namespace capmap {

struct CaseFilter {
  // A pattern matches a case by exact name, by name prefix, or by group (the
  // group itself or any group below it). Each must match some case.
  std::vector<std::string> only;
  // A case must carry at least one of these tags (when any are given).
  std::vector<std::string> tags;
  Shard shard;
};

// Returns the CASE objects selected, in inventory order. Throws UserError
// naming a pattern or tag that selects nothing from the whole inventory.
std::vector<nlohmann::json> select_cases(const nlohmann::json& inventory, const CaseFilter& filter);

// An --only pattern: a name prefix or a group (and its subgroups); `=NAME` is that name alone.
bool name_matches_pattern(const std::string& name, const std::string& pattern);
bool case_matches_pattern(const nlohmann::json& c, const std::string& pattern);

// The bundled default registry surveys its quick tier unless told otherwise:
// with no REGISTRY, no --all, --only or --tag, a filter on the tag `quick`
// when some case carries it.
void use_default_tier(const nlohmann::json& inventory, bool registries_given, bool all,
                      CaseFilter& filter);

}  // namespace capmap

#include "selection/run_selection.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "common/user_error.h"
#include "selection/case_selection.h"

namespace capmap {
namespace {

bool shard_less(const Shard& a, const Shard& b) {
  return a.count != b.count ? a.count < b.count : a.index < b.index;
}

bool shard_equal(const Shard& a, const Shard& b) {
  return a.count == b.count && a.index == b.index;
}

// 1371 → "1,371": the figure a reader compares with the registry's size.
std::string grouped(long long n) {
  std::string digits = std::to_string(n < 0 ? -n : n);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return n < 0 ? "-" + out : out;
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

std::vector<std::string> sorted_unique(std::vector<std::string> items) {
  std::sort(items.begin(), items.end());
  items.erase(std::unique(items.begin(), items.end()), items.end());
  return items;
}

std::vector<std::string> string_list(const nlohmann::json& value, const std::string& where,
                                     const char* key) {
  if (!value.is_array()) throw UserError(fmt::format("{}: selection.{} is not a list", where, key));
  std::vector<std::string> out;
  for (const auto& item : value) {
    if (!item.is_string()) {
      throw UserError(fmt::format("{}: selection.{} holds a non-string", where, key));
    }
    out.push_back(item.get<std::string>());
  }
  return out;
}

std::vector<Shard> parse_shards(const std::string& text, const std::string& where) {
  std::vector<Shard> shards;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t comma = text.find(',', start);
    std::string piece = text.substr(start, comma == std::string::npos ? comma : comma - start);
    piece.erase(0, piece.find_first_not_of(' '));
    try {
      shards.push_back(parse_shard(piece));
    } catch (const UserError&) {
      throw UserError(
          fmt::format("{}: selection.shard '{}' is not a list of I/N shards", where, text));
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return shards;
}

}  // namespace

bool selects_whole_registry(const RunSelection& selection) {
  return selection.only.empty() && selection.tags.empty() && selection.shards.empty();
}

RunSelection combine_selections(const std::vector<RunSelection>& runs) {
  RunSelection out;
  bool unfiltered = false;
  bool unsplit = false;
  std::map<int, std::set<int>> shards_by_count;
  for (const auto& run : runs) {
    out.registry_cases = std::max(out.registry_cases, run.registry_cases);
    if (run.only.empty() && run.tags.empty()) unfiltered = true;
    out.only.insert(out.only.end(), run.only.begin(), run.only.end());
    out.tags.insert(out.tags.end(), run.tags.begin(), run.tags.end());
    if (run.shards.empty()) unsplit = true;
    for (const auto& shard : run.shards) shards_by_count[shard.count].insert(shard.index);
  }
  if (unfiltered) {
    out.only.clear();
    out.tags.clear();
  }
  out.only = sorted_unique(std::move(out.only));
  out.tags = sorted_unique(std::move(out.tags));
  // Every shard of one split measured is the same as no split.
  bool every_shard =
      shards_by_count.size() == 1 && shards_by_count.begin()->second.size() ==
                                         static_cast<std::size_t>(shards_by_count.begin()->first);
  if (!unsplit && !every_shard) {
    for (const auto& [count, indexes] : shards_by_count) {
      for (int index : indexes) out.shards.push_back({index, count});
    }
  }
  return out;
}

nlohmann::json selection_to_json(const RunSelection& selection) {
  return {{"registry_cases", selection.registry_cases},
          {"cases", selection.cases},
          {"only", selection.only},
          {"tags", selection.tags},
          {"shard", selection.shards.empty() ? nlohmann::json()
                                             : nlohmann::json(shards_text(selection.shards))}};
}

std::optional<RunSelection> selection_from_json(const nlohmann::json& header,
                                                const std::string& where) {
  auto it = header.find("selection");
  if (it == header.end() || it->is_null()) return std::nullopt;
  const nlohmann::json& value = *it;
  if (!value.is_object()) throw UserError(fmt::format("{}: selection is not an object", where));
  RunSelection selection;
  for (const char* key : {"registry_cases", "cases"}) {
    auto n = value.find(key);
    if (n == value.end() || !n->is_number_integer() || n->get<long long>() < 0) {
      throw UserError(fmt::format("{}: selection.{} is not a count", where, key));
    }
    (std::string(key) == "cases" ? selection.cases : selection.registry_cases) =
        n->get<long long>();
  }
  selection.only = string_list(value.value("only", nlohmann::json::array()), where, "only");
  selection.tags = string_list(value.value("tags", nlohmann::json::array()), where, "tags");
  auto shard = value.find("shard");
  if (shard != value.end() && !shard->is_null()) {
    if (!shard->is_string()) {
      throw UserError(fmt::format("{}: selection.shard is not a string", where));
    }
    selection.shards = parse_shards(shard->get<std::string>(), where);
    std::sort(selection.shards.begin(), selection.shards.end(), shard_less);
    selection.shards.erase(
        std::unique(selection.shards.begin(), selection.shards.end(), shard_equal),
        selection.shards.end());
  }
  return selection;
}

std::string shards_text(const std::vector<Shard>& shards) {
  std::vector<std::string> parts;
  for (const auto& shard : shards) parts.push_back(fmt::format("{}/{}", shard.index, shard.count));
  return joined(parts);
}

std::string describe_selection(const RunSelection& selection) {
  const char* noun = selection.registry_cases == 1 ? "registry case" : "registry cases";
  if (selects_whole_registry(selection) && selection.cases == selection.registry_cases) {
    return fmt::format("all {} {}", grouped(selection.registry_cases), noun);
  }
  std::vector<std::string> filters;
  if (!selection.tags.empty()) {
    filters.push_back((selection.tags.size() == 1 ? "tag " : "tags ") + joined(selection.tags));
  }
  if (!selection.only.empty()) filters.push_back("only " + joined(selection.only));
  if (!selection.shards.empty()) {
    filters.push_back((selection.shards.size() == 1 ? "shard " : "shards ") +
                      shards_text(selection.shards));
  }
  std::string out =
      fmt::format("{} of {} {}", grouped(selection.cases), grouped(selection.registry_cases), noun);
  if (filters.empty()) return out;
  std::string detail;
  for (const auto& f : filters) detail += (detail.empty() ? "" : "; ") + f;
  return out + " (" + detail + ")";
}

std::optional<bool> selection_covers(const RunSelection& selection,
                                     const nlohmann::json& case_entry) {
  const std::string name = case_entry.value("name", "");
  bool unknown = false;
  if (!selection.shards.empty() &&
      std::none_of(selection.shards.begin(), selection.shards.end(),
                   [&](const Shard& s) { return shard_owns(s, name); })) {
    return false;
  }
  if (!selection.only.empty()) {
    bool has_group = case_entry.contains("group") && case_entry["group"].is_string();
    bool matched =
        std::any_of(selection.only.begin(), selection.only.end(), [&](const std::string& p) {
          return has_group ? case_matches_pattern(case_entry, p) : name_matches_pattern(name, p);
        });
    if (!matched) {
      if (!has_group)
        unknown = true;
      else
        return false;
    }
  }
  if (!selection.tags.empty()) {
    auto tags = case_entry.find("tags");
    if (tags == case_entry.end() || !tags->is_array()) {
      unknown = true;
    } else if (std::none_of(tags->begin(), tags->end(), [&](const nlohmann::json& t) {
                 return t.is_string() && std::find(selection.tags.begin(), selection.tags.end(),
                                                   t.get<std::string>()) != selection.tags.end();
               })) {
      return false;
    }
  }
  if (unknown) return std::nullopt;
  return true;
}

}  // namespace capmap

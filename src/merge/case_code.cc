#include "merge/case_code.h"

#include <set>
#include <sstream>

namespace capmap {
namespace {

constexpr const char* kCodeKeys[] = {"files", "functions"};

std::set<std::string> words(const nlohmann::json& value) {
  std::set<std::string> out;
  if (!value.is_string()) return out;
  std::istringstream in(value.get<std::string>());
  for (std::string word; in >> word;) out.insert(word);
  return out;
}

std::string joined(const std::set<std::string>& names) {
  std::string out;
  for (const auto& name : names) out += (out.empty() ? "" : " ") + name;
  return out;
}

}  // namespace

void add_case_code(nlohmann::json& into, const nlohmann::json& more, bool functions) {
  if (!more.is_object()) return;
  if (!into.is_object()) into = nlohmann::json::object();
  for (const auto& [file, value] : more.items()) {
    auto found = into.find(file);
    if (found == into.end()) {
      into[file] = value;
    } else if (functions) {
      auto names = words(*found);
      names.merge(words(value));
      *found = joined(names);
    }
  }
}

void gather_case_code(nlohmann::json& entry, const std::string& name, const Baseline* carry_from) {
  auto entry_paths = entry.find("paths");
  if (entry_paths == entry.end() || !entry_paths->is_object()) return;
  bool carried = false;
  // A record with files but no functions came from a worker that cannot name them (before
  // Python 3.11): the case's functions would be partial, so it has none.
  bool functions_unknown = false;
  for (auto& [path, record] : entry_paths->items()) {
    if (!record.is_object()) continue;
    carried = carried || record.value("carried", false);
    functions_unknown =
        functions_unknown || (record.contains("files") && !record.contains("functions"));
    for (const char* key : kCodeKeys) {
      auto found = record.find(key);
      if (found == record.end()) continue;
      add_case_code(entry[key], *found, key == std::string("functions"));
      record.erase(found);
    }
  }
  const nlohmann::json* known = carried && carry_from ? carry_from->find_case(name) : nullptr;
  if (known) {
    functions_unknown =
        functions_unknown || (known->contains("files") && !known->contains("functions"));
    for (const char* key : kCodeKeys) {
      if (auto found = known->find(key); found != known->end()) {
        add_case_code(entry[key], *found, key == std::string("functions"));
      }
    }
  }
  if (functions_unknown) entry.erase("functions");
}

}  // namespace capmap

#include "merge/baseline.h"

#include <fmt/format.h>

#include "common/atomic_file.h"
#include "common/json_document.h"
#include "common/user_error.h"
#include "snapshot/snapshot_fields.h"

namespace capmap {

Baseline::Baseline(const std::filesystem::path& file) : name_(file.string()) {
  snapshot_ = parse_json_document(read_file(file), name_);
  auto bad = [&](const char* problem) {
    return UserError(fmt::format("{}: not a capmap snapshot: {}", name_, problem));
  };
  if (!snapshot_.is_object() || snapshot_.value("schema_version", 0) != 1) {
    throw bad("no schema_version 1");
  }
  if (!snapshot_.contains("header") || !snapshot_["header"].is_object()) throw bad("no 'header'");
  if (!snapshot_.contains("cases") || !snapshot_["cases"].is_array()) throw bad("no 'cases' list");
  for (const auto& entry : snapshot_["cases"]) {
    if (!entry.is_object() || !entry.contains("name") || !entry["name"].is_string() ||
        !entry.contains("paths") || !entry["paths"].is_object()) {
      throw bad("a case without 'name' or 'paths'");
    }
    cases_.emplace(entry["name"].get<std::string>(), &entry);
  }
  check_snapshot_fields(snapshot_, name_);
}

std::string Baseline::generated_at() const {
  const auto& header = snapshot_["header"];
  auto it = header.find("generated_at");
  return it != header.end() && it->is_string() ? it->get<std::string>() : std::string();
}

const nlohmann::json* Baseline::find_case(const std::string& name) const {
  auto it = cases_.find(name);
  return it == cases_.end() ? nullptr : it->second;
}

std::optional<nlohmann::json> Baseline::carried_record(const std::string& name,
                                                       const std::string& path) const {
  const nlohmann::json* entry = find_case(name);
  if (!entry) return std::nullopt;
  const auto& paths = (*entry)["paths"];
  auto it = paths.find(path);
  if (it == paths.end() || !it->is_object() || it->value("status", "missing") == "missing") {
    return std::nullopt;
  }
  nlohmann::json record = *it;
  // Classified again by this merge's rules, like every record.
  for (const char* derived : {"page_status", "cause", "category", "detail"}) record.erase(derived);
  record["carried"] = true;
  record["carried_from"] = generated_at();
  return record;
}

}  // namespace capmap

#include "merge/baseline.h"

#include "snapshot/snapshot_file.h"

namespace capmap {

Baseline::Baseline(const std::filesystem::path& file) : name_(file.string()) {
  // The snapshot room's reader: the same checks, in the same words, as every other command.
  snapshot_ = load_snapshot(file);
  for (const auto& entry : snapshot_["cases"])
    cases_.emplace(entry["name"].get<std::string>(), &entry);
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

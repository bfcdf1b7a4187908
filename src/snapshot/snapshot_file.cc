#include "snapshot/snapshot_file.h"

#include <fmt/format.h>

#include <set>
#include <string>

#include "common/atomic_file.h"
#include "common/json_document.h"
#include "common/user_error.h"
#include "selection/run_selection.h"
#include "snapshot/kornia_survey_file.h"
#include "snapshot/snapshot_fields.h"

namespace capmap {

namespace {

nlohmann::json checked_snapshot(nlohmann::json snapshot, const std::string& name) {
  auto bad = [&](const std::string& problem) {
    return UserError(fmt::format("{}: not a capmap snapshot: {}", name, problem));
  };
  if (!snapshot.is_object()) throw bad("the top level is not an object");
  auto version = snapshot.find("schema_version");
  if (version == snapshot.end() || !version->is_number_integer()) {
    throw bad("no integer 'schema_version'");
  }
  if (*version != 1) {
    throw UserError(fmt::format("{}: snapshot schema version {} is not supported (expected 1)",
                                name, version->dump()));
  }
  if (!snapshot.contains("header") || !snapshot["header"].is_object()) {
    throw bad("no 'header' object");
  }
  // A malformed selection fails here, naming the file; an absent one is an older snapshot.
  selection_from_json(snapshot["header"], name);
  if (!snapshot.contains("cases") || !snapshot["cases"].is_array()) throw bad("no 'cases' list");
  std::set<std::string> names;
  std::size_t index = 0;
  for (const auto& entry : snapshot["cases"]) {
    if (!entry.is_object() || !entry.contains("name") || !entry["name"].is_string()) {
      throw bad(fmt::format("cases[{}] has no 'name'", index));
    }
    const std::string case_name = entry["name"];
    if (!names.insert(case_name).second) {
      throw bad(fmt::format("case '{}' appears twice", case_name));
    }
    if (!entry.contains("paths") || !entry["paths"].is_object()) {
      throw bad(fmt::format("case '{}' has no 'paths' object", case_name));
    }
    for (const auto& [path, record] : entry["paths"].items()) {
      if (!record.is_object() || !record.contains("status") || !record["status"].is_string()) {
        throw bad(fmt::format("case '{}' path '{}' has no 'status'", case_name, path));
      }
    }
    ++index;
  }
  check_snapshot_fields(snapshot, name);
  return snapshot;
}

}  // namespace

nlohmann::json load_snapshot(const std::filesystem::path& file) {
  return parse_snapshot(read_file(file), file.string());
}

nlohmann::json load_snapshot_or_kornia_survey(const std::filesystem::path& file) {
  return parse_snapshot_or_kornia_survey(read_file(file), file.string());
}

nlohmann::json parse_snapshot(std::string_view text, const std::string& name) {
  return checked_snapshot(parse_json_document(text, name), name);
}

nlohmann::json parse_snapshot_or_kornia_survey(std::string_view text, const std::string& name) {
  nlohmann::json document = parse_json_document(text, name);
  if (is_kornia_survey(document)) return snapshot_from_kornia_survey(document, name);
  return checked_snapshot(std::move(document), name);
}

}  // namespace capmap

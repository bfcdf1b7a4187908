#include "diff/snapshot_file.h"

#include <fmt/format.h>

#include <set>
#include <string>

#include "common/atomic_file.h"
#include "common/user_error.h"
#include "diff/kornia_survey_file.h"
#include "run/run_selection.h"

namespace capmap {

namespace {

nlohmann::json read_json(const std::filesystem::path& file) {
  const std::string name = file.string();
  std::string text = read_file(file);
  nlohmann::json snapshot;
  try {
    snapshot = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    // nlohmann's message starts with "[json.exception.parse_error.101] parse error at line ..."
    std::string what = e.what();
    auto start = what.find("] ");
    throw UserError(fmt::format("{}: not valid JSON: {}", name,
                                start == std::string::npos ? what : what.substr(start + 2)));
  }
  return snapshot;
}

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
  return snapshot;
}

}  // namespace

nlohmann::json load_snapshot(const std::filesystem::path& file) {
  return checked_snapshot(read_json(file), file.string());
}

nlohmann::json load_snapshot_or_kornia_survey(const std::filesystem::path& file) {
  nlohmann::json document = read_json(file);
  if (is_kornia_survey(document)) return snapshot_from_kornia_survey(document, file.string());
  return checked_snapshot(std::move(document), file.string());
}

}  // namespace capmap

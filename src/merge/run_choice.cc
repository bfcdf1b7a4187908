#include "merge/run_choice.h"

#include <fmt/format.h>

#include <set>
#include <tuple>

#include "common/user_error.h"

namespace capmap {
namespace {

std::string text_of(const nlohmann::json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_null()) return "";
  return value.dump();
}

// The value a filter name reads from a run's info; empty when absent.
std::string run_value(const StoredRun& run, const std::string& name) {
  if (name == "library") {
    const auto library = run.info.value("library", nlohmann::json::object());
    return library.is_object() ? text_of(library.value("version", nlohmann::json())) : "";
  }
  const auto versions = run.info.value("versions", nlohmann::json::object());
  return versions.is_object() ? text_of(versions.value(name, nlohmann::json())) : "";
}

bool passes(const StoredRun& run, const VersionFilter& filter) {
  for (const auto& [name, wanted] : filter) {
    if (!version_matches(wanted, run_value(run, name))) return false;
  }
  return true;
}

}  // namespace

std::string describe_environment(const StoredRun& run) {
  std::string text;
  const auto versions = run.info.value("versions", nlohmann::json::object());
  if (versions.is_object()) {
    for (const char* name : {"torch", "onnxscript", "onnx", "onnxruntime", "python"}) {
      const std::string value = text_of(versions.value(name, nlohmann::json()));
      if (value.empty()) continue;
      text += fmt::format("{}{} {}", text.empty() ? "" : ", ", name, value);
    }
  }
  const auto library = run.info.value("library", nlohmann::json::object());
  if (library.is_object() && library.contains("name")) {
    text += fmt::format("{}{} {}", text.empty() ? "" : ", ", text_of(library["name"]),
                        text_of(library.value("version", nlohmann::json())));
  }
  return text;
}

RunChoice choose_run(const std::vector<std::vector<StoredRun>>& runs_per_store,
                     const std::string& run_key, const VersionFilter& filter,
                     const std::string& first_store) {
  RunChoice choice;
  std::vector<std::string> held;
  std::set<std::string> passing;
  for (const auto& runs : runs_per_store) {
    for (const auto& run : runs) {
      held.push_back(fmt::format("{} ({})", run.run_key, describe_environment(run)));
      if (!run_key.empty()) {
        if (run.run_key != run_key) continue;
      } else if (!passes(run, filter)) {
        continue;
      }
      passing.insert(run.run_key);
      if (!choice.run ||
          std::tie(run.created, run.run_key) > std::tie(choice.run->created, choice.run->run_key)) {
        choice.run = &run;
      }
    }
  }
  choice.candidates = passing.size();
  if (choice.run) return choice;
  if (held.empty()) throw UserError(fmt::format("{}: store holds no run yet", first_store));
  std::string listed;
  for (const auto& one : held) listed += (listed.empty() ? "" : "; ") + one;
  if (!run_key.empty()) {
    throw UserError(fmt::format("merge: no store holds run key {}; held: {}", run_key, listed));
  }
  throw UserError(fmt::format("merge: no run matches --versions; held: {}", listed));
}

}  // namespace capmap

#include "history/version_column.h"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include "common/user_error.h"
#include "snapshot/kornia_survey_file.h"
#include "snapshot/snapshot_file.h"

namespace capmap {
namespace {

std::string text(const nlohmann::json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

std::vector<int> release_numbers(const std::string& version) {
  std::vector<int> numbers;
  std::stringstream parts(version.substr(0, version.find('+')));
  std::string part;
  while (std::getline(parts, part, '.')) {
    int value = 0;
    for (char c : part) {
      if (c < '0' || c > '9') break;
      value = value * 10 + (c - '0');
    }
    numbers.push_back(value);
  }
  return numbers;
}

}  // namespace

bool torch_version_less(const std::string& a, const std::string& b) {
  return release_numbers(a) < release_numbers(b);
}

std::map<std::string, std::map<std::string, VersionCell>> cells_by_name(
    const nlohmann::json& snapshot) {
  std::map<std::string, std::map<std::string, VersionCell>> cells;
  for (const auto& entry : snapshot.at("cases")) {
    auto& row = cells[entry.value("name", "")];
    const nlohmann::json paths = entry.value("paths", nlohmann::json::object());
    for (const auto& [path, record] : paths.items()) {
      // A forced merge of an unfinished run marks what was never measured: not surveyed.
      if (path == "eager" || !record.is_object() || text(record, "status") == "missing") continue;
      VersionCell cell;
      cell.status = text(record, "page_status");
      if (cell.status.empty()) cell.status = text(record, "status");
      cell.cause = text(record, "cause");
      row[path] = cell;
    }
  }
  return cells;
}

VersionColumn load_version_column(const std::filesystem::path& file) {
  VersionColumn column;
  column.file = file.string();
  column.snapshot = load_snapshot_or_kornia_survey(file);
  const auto& header = column.snapshot.at("header");
  column.reference = text(header, "layout") == kKorniaSurveyLayout;
  const auto versions = header.value("versions", nlohmann::json::object());
  const std::string torch = text(versions, "torch");
  if (torch.empty()) {
    throw UserError(fmt::format("{}: its header names no torch version", column.file));
  }
  column.torch = torch.substr(0, torch.find('+'));
  column.label = column.reference ? fmt::format("torch {} (Kornia's file)", column.torch)
                                  : fmt::format("torch {}", column.torch);
  std::string environment;
  // The exporters first, then any other package a path declared (executorch), by name.
  std::vector<std::string> names = {"onnxscript", "onnx", "onnxruntime"};
  for (const auto& [name, value] : versions.items()) {
    if (name != "torch" && name != "python" &&
        std::find(names.begin(), names.end(), name) == names.end()) {
      names.push_back(name);
    }
  }
  for (const auto& name : names) {
    const std::string value = text(versions, name.c_str());
    if (!value.empty())
      environment += fmt::format("{}{} {}", environment.empty() ? "" : ", ", name, value);
  }
  const auto library = header.value("library", nlohmann::json::object());
  const std::string library_version =
      library.is_object() ? text(library, "version") : text(header, "kornia");
  if (!library_version.empty()) {
    const std::string name = library.is_object() && library.contains("name")
                                 ? text(library, "name")
                                 : std::string("kornia");
    environment += fmt::format("{}{} {}", environment.empty() ? "" : ", ", name, library_version);
  }
  column.environment = environment;
  column.cases = column.snapshot.at("cases").size();
  column.registry_cases = column.cases;
  if (auto selection = header.find("selection");
      selection != header.end() && selection->is_object()) {
    column.registry_cases = selection->value("registry_cases", column.cases);
  }
  if (!column.reference) column.cells = cells_by_name(column.snapshot);
  // Only the cases with a measured cell count: an unfinished run is a sample of the registry.
  if (!column.reference) {
    std::size_t measured = 0;
    for (const auto& [name, paths] : column.cells) measured += !paths.empty();
    column.cases = std::min(column.cases, measured);
  }
  column.sample = !column.reference && column.cases < column.registry_cases;
  return column;
}

}  // namespace capmap

#include "snapshot/kornia_survey_file.h"

#include <fmt/format.h>

#include <set>

#include "common/user_error.h"

namespace capmap {
namespace {

constexpr const char* kPaths[] = {"onnx", "export", "compile"};

// The file writes page statuses, with crashes, timeouts and OOMs folded into
// `fail`; the engine's own names are accepted as they are.
bool is_page_status(const std::string& status) {
  static const std::set<std::string> known = {
      "ok", "ok-breaks", "ok-unverified", "mismatch", "fail", "crashed", "timeout", "oom", "n/a"};
  return known.count(status) > 0;
}

nlohmann::json text_or_null(const nlohmann::json& object, const char* key) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return nullptr;
  return it->is_string() ? *it : nlohmann::json(it->dump());
}

std::string text_or_empty(const nlohmann::json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

bool is_kornia_survey(const nlohmann::json& document) {
  return document.is_object() && !document.contains("schema_version") &&
         document.contains("kornia") && document.contains("cases") && document["cases"].is_array();
}

nlohmann::json snapshot_from_kornia_survey(const nlohmann::json& survey, const std::string& where) {
  nlohmann::json versions = nlohmann::json::object();
  for (const char* name : {"torch", "onnx", "onnxruntime", "onnxscript", "python"}) {
    versions[name] = text_or_null(survey, name);
  }
  nlohmann::json settings = nlohmann::json::object();
  if (auto opset = survey.find("opset"); opset != survey.end() && !opset->is_null()) {
    settings["opset"] = *opset;
  }
  nlohmann::json header = {
      {"layout", kKorniaSurveyLayout},
      {"library",
       {{"name", "kornia"},
        {"version", text_or_null(survey, "kornia")},
        {"revision", text_or_null(survey, "revision")}}},
      {"versions", std::move(versions)},
      {"settings", std::move(settings)},
      {"device", text_or_null(survey, "device")},
      {"generated_at", text_or_null(survey, "generated_at")},
      {"paths", {"onnx", "export", "compile"}},
  };

  nlohmann::json cases = nlohmann::json::array();
  std::set<std::string> names;
  std::size_t index = 0;
  for (const auto& entry : survey["cases"]) {
    if (!entry.is_object() || !entry.contains("name") || !entry["name"].is_string()) {
      throw UserError(fmt::format("{}: cases[{}] has no 'name'", where, index));
    }
    const std::string name = entry["name"];
    if (!names.insert(name).second) {
      throw UserError(fmt::format("{}: case '{}' appears twice", where, name));
    }
    nlohmann::json out = {{"name", name}};
    for (const char* key : {"operator", "variant", "package", "section", "note", "ref", "where"}) {
      out[key] = text_or_empty(entry, key);
    }
    nlohmann::json paths = nlohmann::json::object();
    for (const char* path : kPaths) {
      auto status = entry.find(path);
      if (status == entry.end() || status->is_null()) continue;
      if (!status->is_string() || !is_page_status(status->get<std::string>())) {
        throw UserError(fmt::format(
            "{}: case '{}': {} status {} is not one of ok, ok-breaks, ok-unverified, mismatch, "
            "fail, crashed, timeout, oom, n/a",
            where, name, path, status->dump()));
      }
      nlohmann::json record = {{"status", *status}, {"page_status", *status}};
      std::string detail = text_or_empty(entry, (std::string(path) + "_detail").c_str());
      if (!detail.empty() && *status != "ok") record["cause"] = detail;
      if (std::string(path) == "compile") {
        auto breaks = entry.find("graph_breaks");
        if (breaks != entry.end() && breaks->is_number_integer()) record["graph_breaks"] = *breaks;
      }
      paths[path] = std::move(record);
    }
    out["paths"] = std::move(paths);
    cases.push_back(std::move(out));
    ++index;
  }
  return {{"schema_version", 1}, {"header", std::move(header)}, {"cases", std::move(cases)}};
}

}  // namespace capmap

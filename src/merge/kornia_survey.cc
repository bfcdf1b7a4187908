#include "merge/kornia_survey.h"

#include <string>

namespace capmap {
namespace {

nlohmann::json text_or_empty(const nlohmann::json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && !it->is_null() ? *it : nlohmann::json("");
}

// That file knows no engine statuses: a crash, timeout or OOM is a failure.
std::string survey_status(const std::string& page_status) {
  if (page_status == "crashed" || page_status == "timeout" || page_status == "oom") return "fail";
  return page_status;
}

}  // namespace

nlohmann::json kornia_survey(const nlohmann::json& snapshot) {
  const nlohmann::json& header = snapshot.at("header");
  const nlohmann::json& versions = header.value("versions", nlohmann::json::object());
  const nlohmann::json& library = header.value("library", nlohmann::json::object());
  nlohmann::json survey = {
      {"device", text_or_empty(header, "device")},
      {"generated_at", text_or_empty(header, "generated_at")},
      {"kornia", text_or_empty(library, "version")},
      {"revision", text_or_empty(library, "revision")},
      {"onnx", text_or_empty(versions, "onnx")},
      {"onnxruntime", text_or_empty(versions, "onnxruntime")},
      {"onnxscript", text_or_empty(versions, "onnxscript")},
      {"python", text_or_empty(versions, "python")},
      {"torch", text_or_empty(versions, "torch")},
      {"opset",
       header.value("settings", nlohmann::json::object()).value("opset", nlohmann::json())},
  };
  nlohmann::json cases = nlohmann::json::array();
  for (const auto& entry : snapshot.at("cases")) {
    nlohmann::json out;
    for (const char* key :
         {"name", "package", "section", "operator", "variant", "note", "ref", "where"}) {
      out[key] = text_or_empty(entry, key);
    }
    const nlohmann::json& paths = entry.value("paths", nlohmann::json::object());
    out["graph_breaks"] = nullptr;
    for (const char* path : {"onnx", "export", "compile"}) {
      auto it = paths.find(path);
      std::string detail_key = std::string(path) + "_detail";
      if (it == paths.end()) {
        out[path] = "n/a";
        out[detail_key] = "";
        continue;
      }
      out[path] = survey_status(it->value("page_status", "n/a"));
      // The cause reads better on a page than the raw message; fall back to it.
      std::string detail = it->value("cause", "");
      if (detail.empty()) detail = it->value("detail", "");
      out[detail_key] = detail;
      if (std::string(path) == "compile" && it->contains("graph_breaks")) {
        out["graph_breaks"] = (*it)["graph_breaks"];
      }
    }
    cases.push_back(std::move(out));
  }
  survey["cases"] = std::move(cases);
  return survey;
}

}  // namespace capmap

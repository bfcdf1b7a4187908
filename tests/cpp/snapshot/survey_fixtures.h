#pragma once
// A Kornia survey file (export_support.json) and a capmap snapshot of the same
// cases, for the tests that read the one as the other and diff the two.
#include <nlohmann/json.hpp>
#include <string>

namespace capmap::testing {

inline nlohmann::json survey_case(const std::string& name, const std::string& onnx,
                                  const std::string& onnx_detail, const std::string& compile,
                                  int graph_breaks) {
  return {{"name", name},
          {"package", "kornia.color"},
          {"section", ""},
          {"operator", name},
          {"variant", ""},
          {"note", ""},
          {"ref", "kornia.color." + name},
          {"where", ""},
          {"onnx", onnx},
          {"onnx_detail", onnx_detail},
          {"export", "ok"},
          {"export_detail", ""},
          {"compile", compile},
          {"compile_detail", compile == "ok-breaks" ? "1 graph break: a branch on values" : ""},
          {"graph_breaks", graph_breaks}};
}

// Kornia's published file: what its own survey script (and merge --kornia-json) writes.
inline nlohmann::json kornia_file() {
  return {
      {"device", "cpu"},
      {"generated_at", "2026-01-15"},
      {"kornia", "0.8.2"},
      {"revision", "f00d"},
      {"onnx", "1.23.2"},
      {"onnxruntime", "1.32.0"},
      {"onnxscript", "0.7.2"},
      {"python", "3.11.9"},
      {"torch", "2.12.0"},
      {"opset", 18},
      {"cases",
       {survey_case("rgb_to_hsv", "fail", "no ONNX lowering for torch.linalg.svd", "ok", 0),
        survey_case("rgb_to_gray", "ok", "", "ok-breaks", 1),
        survey_case("rgb_to_lab", "mismatch", "runs, but the result differs from eager", "ok", 0),
        survey_case("only_in_kornia", "ok", "", "ok", 0)}}};
}

inline nlohmann::json capmap_path(const std::string& status, const std::string& cause = "",
                                  int breaks = -1) {
  nlohmann::json p = {{"status", status}, {"page_status", status}};
  if (!cause.empty()) p["cause"] = cause;
  if (breaks >= 0) p["graph_breaks"] = breaks;
  return p;
}

inline nlohmann::json capmap_case(const std::string& name, const std::string& onnx,
                                  const std::string& onnx_cause, const std::string& compile,
                                  int breaks) {
  return {{"name", name},
          {"group", "color"},
          {"tags", {"quick"}},
          {"paths",
           {{"eager", capmap_path("ok")},
            {"onnx", capmap_path(onnx, onnx_cause)},
            {"export", capmap_path("ok")},
            {"compile", capmap_path(compile, "", breaks)}}}};
}

inline nlohmann::json capmap_snapshot(nlohmann::json selection) {
  return {{"schema_version", 1},
          {"header",
           {{"tool", "capmap 0.1.0"},
            {"run_key", "0123456789abcdef"},
            {"library", {{"name", "kornia"}, {"version", "0.8.2"}, {"revision", "f00d"}}},
            {"versions", {{"torch", "2.13.0"}, {"onnx", "1.23.2"}}},
            {"settings", {{"opset", 18}, {"export_strict", false}}},
            {"paths", {"eager", "onnx", "export", "compile"}},
            {"selection", std::move(selection)}}},
          {"cases",
           {// fixed in the capmap run
            capmap_case("rgb_to_hsv", "ok", "", "ok", 0),
            // same statuses, the cause worded by capmap's rules
            capmap_case("rgb_to_lab", "mismatch", "Output 0 differs from eager", "ok", 0),
            capmap_case("rgb_to_gray", "ok", "", "ok-breaks", 1),
            capmap_case("only_in_capmap", "fail", "No ONNX lowering", "ok", 0)}}};
}

}  // namespace capmap::testing

#pragma once
// A small hand-made snapshot for the render tests.
#include <nlohmann/json.hpp>
#include <string>

namespace capmap::testing {

inline nlohmann::json path_result(const std::string& page_status, const std::string& cause = "",
                                  const std::string& category = "", const std::string& frame = "") {
  nlohmann::json r = {{"status", page_status}, {"page_status", page_status}, {"seconds", 0.1}};
  if (!cause.empty()) {
    r["cause"] = cause;
    r["category"] = category;
    r["detail"] = cause + " (detail)";
  }
  if (!frame.empty()) r["frames"] = {"kornia/core/check.py:3 in check", frame};
  return r;
}

inline nlohmann::json make_case(const std::string& name, const std::string& package,
                                const std::string& section, nlohmann::json paths) {
  std::string op = name.substr(0, name.find('['));
  std::string variant;
  if (auto b = name.find('['); b != std::string::npos)
    variant = name.substr(b + 1, name.size() - b - 2);
  return {{"name", name},        {"operator", op},
          {"variant", variant},  {"group", section.empty() ? package : package + "." + section},
          {"package", package},  {"section", section},
          {"note", ""},          {"ref", "kornia." + package + "." + op},
          {"where", "reg.py:1"}, {"tags", nlohmann::json::array()},
          {"skip", nullptr},     {"paths", std::move(paths)}};
}

// Three cases: one passes everywhere, one fails ONNX and export for one cause
// at one place, one is not applicable anywhere.
inline nlohmann::json small_snapshot() {
  nlohmann::json ok = path_result("ok");
  nlohmann::json dd = path_result("fail", "data-dependent output shape", "data-dependent",
                                  "kornia/geometry/foo.py:123 in warp");
  nlohmann::json na = path_result("n/a", "random output", "not-applicable");
  nlohmann::json compile_ok = path_result("ok");
  compile_ok["graph_breaks"] = 0;
  return {{"schema_version", 1},
          {"header",
           {{"library",
             {{"name", "kornia"},
              {"version", "0.9.0"},
              {"revision", "abc123"},
              {"source_url", "https://src/{revision}/{path}#L{line}"},
              {"docs_url", "https://docs/{ref}"}}},
            {"versions", {{"python", "3.11"}, {"torch", "2.13.0"}}},
            {"device", "cpu"},
            {"generated_at", "2026-01-01T00:00:00Z"},
            {"complete", true},
            {"missing", 0},
            {"paths", {"eager", "onnx", "export", "compile"}}}},
          {"cases",
           {make_case("gray", "color", "", {{"onnx", ok}, {"export", ok}, {"compile", ok}}),
            make_case("random_crop", "augmentation", "",
                      {{"onnx", na}, {"export", na}, {"compile", na}}),
            make_case("warp[bilinear]", "geometry", "transform",
                      {{"onnx", dd}, {"export", dd}, {"compile", compile_ok}}),
            make_case("warp[nearest]", "geometry", "transform",
                      {{"onnx", path_result("mismatch", "outputs differ", "numeric-mismatch")},
                       {"export", ok},
                       {"compile", ok}})}}};
}

}  // namespace capmap::testing

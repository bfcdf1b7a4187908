#pragma once
// A capture path as its plug-in in the Python probes package describes it: the
// worker's hello lists them (`paths`), the store keeps them in runs.info
// (`path_info`) and merge copies those of the probed paths into the snapshot
// header (`path_info`). Nothing in the engine knows a path by name but eager,
// the reference; data from before the descriptions gets the four built-in ones.
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace capmap {

struct PathInfo {
  std::string name;         // "export-dynamic"
  std::string label;        // page column: "torch.export, dynamic shapes"
  std::string short_label;  // cause lines: "export dyn"
  std::string description;  // one line for `capmap list --paths`
  int order = 0;            // column order on the page
  std::vector<std::string> builds_on;
  std::map<std::string, std::string> statuses;  // raw status -> page status
  bool is_default = false;                      // probed when `capmap run` has no --paths
  bool reference = false;                       // eager: compared with, never a column
};

// Reads a list of descriptions (hello, runs.info) or an object keyed by name
// (snapshot header); UserError naming `where` on a malformed entry.
std::vector<PathInfo> read_path_infos(const nlohmann::json& value, const std::string& where);
nlohmann::json path_info_json(const PathInfo& path);
// The list form (hello, runs.info, `capmap list --paths --json`): each entry with its name.
nlohmann::json path_info_list_json(const std::vector<PathInfo>& paths);

// eager, onnx, export, compile as the engine knew them before paths were
// plug-ins: for a worker, store or snapshot that does not describe its paths.
const std::vector<PathInfo>& builtin_paths();

// `name`'s description among `known`, else the built-in one, else a bare one
// (label and short label = name, no status of its own).
PathInfo describe_path(const std::vector<PathInfo>& known, const std::string& name);

// Sorts path names as the page shows them: the reference first, then by order,
// then by name.
void sort_paths(std::vector<std::string>& names, const std::vector<PathInfo>& known);

}  // namespace capmap

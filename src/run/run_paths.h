#pragma once
// Which paths a run probes. The worker's hello announces the paths its probes
// package holds (plug-ins); `--paths` may name any of them, and without it a
// run probes the ones announced as default.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/path_info.h"

namespace capmap {

// `--paths` split at commas, repeats dropped; UserError for an empty name.
// Checked before any process starts: which names exist only the worker knows.
std::vector<std::string> split_path_list(const std::string& text);

// The hello's `paths`; a worker from before plug-ins announces none: the built-in four.
std::vector<PathInfo> announced_paths(const nlohmann::json& hello);

// `requested` (split_path_list's result; empty: the announced defaults) in the
// page's order; UserError naming the announced paths for one not announced.
std::vector<std::string> choose_run_paths(const std::vector<std::string>& requested,
                                          const std::vector<PathInfo>& announced);

// UserError naming the first of `paths` the hello's `unavailable` lists (a
// path whose packages the worker's environment lacks), what is missing and
// the command that installs it: said before any task runs.
void check_paths_available(const nlohmann::json& hello, const std::vector<std::string>& paths,
                           const std::string& python);

}  // namespace capmap

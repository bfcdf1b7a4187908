#include "run/run_paths.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/user_error.h"

namespace capmap {

std::vector<std::string> split_path_list(const std::string& text) {
  std::vector<std::string> paths;
  if (text.empty()) return paths;
  size_t start = 0;
  while (true) {
    size_t comma = text.find(',', start);
    std::string path = text.substr(start, comma == std::string::npos ? comma : comma - start);
    if (path.empty()) throw UserError(fmt::format("--paths '{}': an empty path name", text));
    if (std::find(paths.begin(), paths.end(), path) == paths.end()) paths.push_back(path);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return paths;
}

std::vector<PathInfo> announced_paths(const nlohmann::json& hello) {
  auto it = hello.find("paths");
  if (it == hello.end() || it->is_null()) return builtin_paths();
  return read_path_infos(*it, "worker hello");
}

std::vector<std::string> choose_run_paths(const std::vector<std::string>& requested,
                                          const std::vector<PathInfo>& announced) {
  std::vector<std::string> chosen;
  if (requested.empty()) {
    for (const auto& path : announced) {
      if (path.is_default) chosen.push_back(path.name);
    }
  }
  for (const auto& name : requested) {
    bool known = std::any_of(announced.begin(), announced.end(),
                             [&](const PathInfo& p) { return p.name == name; });
    if (!known) {
      std::string names;
      for (const auto& path : announced) names += (names.empty() ? "" : ", ") + path.name;
      throw UserError(fmt::format("--paths: unknown path '{}' (known: {})", name, names));
    }
    chosen.push_back(name);
  }
  sort_paths(chosen, announced);
  return chosen;
}

void check_paths_available(const nlohmann::json& hello, const std::vector<std::string>& paths,
                           const std::string& python) {
  auto unavailable = hello.find("unavailable");
  if (unavailable == hello.end() || !unavailable->is_object()) return;
  for (const auto& path : paths) {
    auto entry = unavailable->find(path);
    if (entry == unavailable->end() || !entry->is_object()) continue;
    std::string missing;
    for (const auto& name : entry->value("missing", nlohmann::json::array())) {
      if (name.is_string()) missing += (missing.empty() ? "" : ", ") + name.get<std::string>();
    }
    throw UserError(fmt::format(
        "--paths: the {} path needs {}, which {}'s environment lacks: {} (or choose other "
        "--paths)",
        path, missing, python, entry->value("install", "pip install " + missing)));
  }
}

}  // namespace capmap

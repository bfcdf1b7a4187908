#include "selection/hash_changes.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/child_process.h"
#include "common/user_error.h"

namespace capmap {

std::map<std::string, std::vector<std::string>> recorded_hashes(const nlohmann::json& snapshot) {
  std::map<std::string, std::vector<std::string>> found;
  auto cases = snapshot.find("cases");
  if (cases == snapshot.end() || !cases->is_array()) return found;
  for (const auto& c : *cases) {
    auto files = c.is_object() ? c.find("files") : c.end();
    if (!c.is_object() || files == c.end() || !files->is_object()) continue;
    for (const auto& [file, hash] : files->items()) {
      auto& hashes = found[file];
      std::string text = hash.is_string() ? hash.get<std::string>() : "";
      if (std::find(hashes.begin(), hashes.end(), text) == hashes.end()) hashes.push_back(text);
    }
  }
  return found;
}

ChangedFiles files_with_new_hashes(const std::map<std::string, std::vector<std::string>>& recorded,
                                   const std::map<std::string, std::vector<std::string>>& now) {
  ChangedFiles changed;
  for (const auto& [file, hashes] : recorded) {
    auto it = now.find(file);
    const std::string content = it != now.end() && !it->second.empty() ? it->second[0] : "";
    const std::string code = it != now.end() && it->second.size() > 1 ? it->second[1] : "";
    bool same_content = false, same_code = false;
    for (const auto& hash : hashes) {
      auto dot = hash.find('.');
      same_content |= !content.empty() && hash.substr(0, dot) == content;
      same_code |= !code.empty() && dot != std::string::npos && hash.substr(dot + 1) == code;
    }
    if (same_content) continue;
    (same_code ? changed.lines_moved : changed.code).push_back(file);
  }
  return changed;
}

std::map<std::string, std::vector<std::string>> installed_hashes(
    const std::string& python, const std::string& library, const std::vector<std::string>& files) {
  std::vector<std::string> argv = {python, "-m", "capmap.tracing.file_trace", library};
  argv.insert(argv.end(), files.begin(), files.end());
  int exit_code = 0;
  std::string output = run_and_capture(argv, exit_code);
  if (exit_code != 0) {
    throw UserError(
        fmt::format("--changed-auto: cannot hash the installed {} ({} -m capmap.tracing.file_trace "
                    "exited with {})",
                    library, python, exit_code));
  }
  auto parsed = nlohmann::json::parse(output, nullptr, false);
  if (parsed.is_discarded() || !parsed.is_object()) {
    throw UserError(fmt::format(
        "--changed-auto: unreadable answer from {} -m capmap.tracing.file_trace", python));
  }
  // Each file: a list of hashes (content, code); a lone string from an older capmap.
  std::map<std::string, std::vector<std::string>> hashes;
  for (const auto& [file, found] : parsed.items()) {
    auto& list = hashes[file];
    if (found.is_string()) list.push_back(found.get<std::string>());
    if (!found.is_array()) continue;
    for (const auto& hash : found) {
      if (hash.is_string()) list.push_back(hash.get<std::string>());
    }
  }
  return hashes;
}

std::vector<std::string> files_with_unchanged_code(const std::string& python,
                                                   const std::string& rev,
                                                   const std::vector<std::string>& files) {
  if (files.empty()) return {};
  std::vector<std::string> argv = {python, "-m", "capmap.selection.code_change", rev};
  argv.insert(argv.end(), files.begin(), files.end());
  int exit_code = 0;
  std::string output = run_and_capture(argv, exit_code);
  auto parsed = nlohmann::json::parse(output, nullptr, false);
  if (exit_code != 0 || parsed.is_discarded() || !parsed.is_array()) {
    throw UserError(
        fmt::format("--changed-since {}: cannot compare the code of the changed files ({} -m "
                    "capmap.selection.code_change exited with {})",
                    rev, python, exit_code));
  }
  std::vector<std::string> same;
  for (const auto& file : parsed) {
    if (file.is_string()) same.push_back(file.get<std::string>());
  }
  return same;
}

ChangedFiles files_changed_by_hash(const std::string& python, const std::string& library,
                                   const nlohmann::json& known) {
  auto recorded = recorded_hashes(known);
  if (recorded.empty()) return {};
  std::vector<std::string> files;
  for (const auto& [file, hashes] : recorded) files.push_back(file);
  return files_with_new_hashes(recorded, installed_hashes(python, library, files));
}

}  // namespace capmap

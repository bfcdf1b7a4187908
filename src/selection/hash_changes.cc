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

std::vector<std::string> files_with_new_hashes(
    const std::map<std::string, std::vector<std::string>>& recorded,
    const std::map<std::string, std::string>& now) {
  std::vector<std::string> changed;
  for (const auto& [file, hashes] : recorded) {
    auto it = now.find(file);
    bool same = it != now.end() && !it->second.empty() &&
                std::find(hashes.begin(), hashes.end(), it->second) != hashes.end();
    if (!same) changed.push_back(file);
  }
  return changed;
}

std::map<std::string, std::string> installed_hashes(const std::string& python,
                                                    const std::string& library,
                                                    const std::vector<std::string>& files) {
  std::vector<std::string> argv = {python, "-m", "capmap.file_trace", library};
  argv.insert(argv.end(), files.begin(), files.end());
  int exit_code = 0;
  std::string output = run_and_capture(argv, exit_code);
  if (exit_code != 0) {
    throw UserError(fmt::format(
        "--changed-auto: cannot hash the installed {} ({} -m capmap.file_trace exited with {})",
        library, python, exit_code));
  }
  auto parsed = nlohmann::json::parse(output, nullptr, false);
  if (parsed.is_discarded() || !parsed.is_object()) {
    throw UserError(
        fmt::format("--changed-auto: unreadable answer from {} -m capmap.file_trace", python));
  }
  std::map<std::string, std::string> hashes;
  for (const auto& [file, hash] : parsed.items()) {
    hashes[file] = hash.is_string() ? hash.get<std::string>() : "";
  }
  return hashes;
}

std::vector<std::string> files_changed_by_hash(const std::string& python,
                                               const std::string& library,
                                               const nlohmann::json& known) {
  auto recorded = recorded_hashes(known);
  if (recorded.empty()) return {};
  std::vector<std::string> files;
  for (const auto& [file, hashes] : recorded) files.push_back(file);
  return files_with_new_hashes(recorded, installed_hashes(python, library, files));
}

}  // namespace capmap

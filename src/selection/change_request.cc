#include "selection/change_request.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "selection/change_selection.h"
#include "selection/hash_changes.h"

namespace capmap {
namespace {

// ": a.py, b.py, c.py (+2 more)": the first few, so the log says what moved.
std::string listed(const std::vector<std::string>& files) {
  constexpr std::size_t kShown = 5;
  std::string out;
  for (std::size_t i = 0; i < files.size() && i < kShown; ++i) {
    out += (i == 0 ? ": " : ", ") + files[i];
  }
  if (files.size() > kShown) out += fmt::format(" (+{} more)", files.size() - kShown);
  return out;
}

}  // namespace

ChangedFiles named_changed_files(const ChangeRequest& request, const std::string& python) {
  ChangedFiles files;
  for (const auto& file : request.files) {
    files.code.push_back(std::filesystem::absolute(file).lexically_normal().string());
  }
  if (!request.since.empty()) {
    auto since = files_changed_since(request.since);
    auto same = files_with_unchanged_code(python, request.since, since);
    if (!same.empty()) {
      std::fprintf(stderr,
                   "capmap: --changed-since %s: %zu of %zu changed files differ only in "
                   "docstrings, comments or layout: they select only the cases whose results "
                   "cite their lines%s\n",
                   request.since.c_str(), same.size(), since.size(), listed(same).c_str());
    }
    for (auto& file : since) {
      bool moved = std::find(same.begin(), same.end(), file) != same.end();
      (moved ? files.lines_moved : files.code).push_back(std::move(file));
    }
  }
  return files;
}

void add_files_changed_by_hash(const ChangeRequest& request, const nlohmann::json* known,
                               const std::string& python, const std::string& library,
                               ChangedFiles& files) {
  if (!request.by_hash) return;
  if (known == nullptr) {
    std::fprintf(stderr,
                 "capmap: --changed-auto: no earlier results to compare with (give --baseline)\n");
    return;
  }
  auto changed = files_changed_by_hash(python, library, *known);
  std::fprintf(stderr, "capmap: --changed-auto: %zu of %zu recorded %s files differ%s\n",
               changed.code.size(), recorded_hashes(*known).size(), library.c_str(),
               listed(changed.code).c_str());
  if (!changed.lines_moved.empty()) {
    std::fprintf(stderr,
                 "capmap: --changed-auto: %zu more differ only in docstrings, comments or layout: "
                 "they select only the cases whose results cite their lines%s\n",
                 changed.lines_moved.size(), listed(changed.lines_moved).c_str());
  }
  for (auto& file : changed.code) files.code.push_back(std::move(file));
  for (auto& file : changed.lines_moved) files.lines_moved.push_back(std::move(file));
}

}  // namespace capmap

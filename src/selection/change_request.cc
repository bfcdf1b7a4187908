#include "selection/change_request.h"

#include <fmt/format.h>

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

std::vector<std::string> named_changed_files(const ChangeRequest& request) {
  std::vector<std::string> files;
  for (const auto& file : request.files) {
    files.push_back(std::filesystem::absolute(file).lexically_normal().string());
  }
  if (!request.since.empty()) {
    for (auto& file : files_changed_since(request.since)) files.push_back(std::move(file));
  }
  return files;
}

void add_files_changed_by_hash(const ChangeRequest& request, const nlohmann::json* known,
                               const std::string& python, const std::string& library,
                               std::vector<std::string>& files) {
  if (!request.by_hash) return;
  if (known == nullptr) {
    std::fprintf(stderr,
                 "capmap: --changed-auto: no earlier results to compare with (give --baseline)\n");
    return;
  }
  auto changed = files_changed_by_hash(python, library, *known);
  std::fprintf(stderr, "capmap: --changed-auto: %zu of %zu recorded %s files differ%s\n",
               changed.size(), recorded_hashes(*known).size(), library.c_str(),
               listed(changed).c_str());
  for (auto& file : changed) files.push_back(std::move(file));
}

}  // namespace capmap

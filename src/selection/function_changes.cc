#include "selection/function_changes.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>

#include "common/child_process.h"
#include "common/user_error.h"

namespace capmap {

std::vector<std::string> cases_untouched_by_functions(
    const CaseSource& source, const std::string& rev, const std::vector<std::string>& cases,
    const std::vector<std::string>& files, const std::map<std::string, nlohmann::json>& recorded) {
  if (cases.empty() || files.empty()) return {};
  nlohmann::json known = nlohmann::json::object();
  for (const auto& name : cases) {
    if (auto it = recorded.find(name); it != recorded.end()) known[name] = it->second;
  }
  const nlohmann::json request = {{"registries", source.registries},
                                  {"settings", source.settings},
                                  {"cases", cases},
                                  {"files", files},
                                  {"jobs", source.jobs},
                                  {"recorded", known}};
  const auto path = std::filesystem::temp_directory_path() /
                    fmt::format("capmap-function-request-{}.json", ::getpid());
  {
    std::ofstream out(path);
    out << request.dump();
    if (!out)
      throw UserError(fmt::format("--changed-since {}: cannot write {}", rev, path.string()));
  }
  int exit_code = 0;
  std::string output = run_and_capture({source.python, "-m", "capmap.selection.function_change",
                                        rev, "--request", path.string(), "--remove-request"},
                                       exit_code);
  // The child removes it once read; here in case it never started.
  std::error_code ignored;
  std::filesystem::remove(path, ignored);
  // The answer is stdout's last line; a registry may print before it.
  auto start = output.find_last_of('\n', output.empty() ? 0 : output.size() - 2);
  auto parsed = nlohmann::json::parse(
      start == std::string::npos ? output : output.substr(start + 1), nullptr, false);
  if (exit_code != 0 || parsed.is_discarded() || !parsed.is_object() ||
      !parsed.contains("unaffected") || !parsed["unaffected"].is_array()) {
    throw UserError(fmt::format("{} -m capmap.selection.function_change exited with {}",
                                source.python, exit_code));
  }
  std::vector<std::string> untouched;
  for (const auto& name : parsed["unaffected"]) {
    if (name.is_string()) untouched.push_back(name.get<std::string>());
  }
  return untouched;
}

void narrow_to_functions(ChangeSelection& selection, const ChangeRequest& request,
                         const CaseSource& source, const std::vector<std::string>& changed_code) {
  if (request.by_file || request.since.empty() || !request.files.empty() || request.by_hash) {
    return;
  }
  if (!selection.everything_reason.empty() || selection.runs_changed_file.empty()) return;
  // By default only the cases whose functions the known snapshot recorded are narrowed: that
  // costs no trace, and what the captures entered was recorded too.
  std::vector<std::string> candidates;
  for (const auto& name : selection.runs_changed_file) {
    if (request.by_function || selection.recorded_functions.contains(name)) {
      candidates.push_back(name);
    }
  }
  if (candidates.empty()) return;
  const std::size_t recorded = std::min(candidates.size(), selection.recorded_functions.size());
  if (request.by_function) {
    std::fprintf(stderr,
                 "capmap: --changed-since %s: of the %zu cases that run a changed file, keeping "
                 "those that run none of its changed functions (%zu as the baseline recorded, "
                 "%zu traced now)\n",
                 request.since.c_str(), candidates.size(), recorded, candidates.size() - recorded);
  } else {
    std::fprintf(stderr,
                 "capmap: --changed-since %s: of the %zu cases that run a changed file, %zu have "
                 "the functions they run recorded: keeping those that run none of its changed "
                 "functions (--by-file runs them all)\n",
                 request.since.c_str(), selection.runs_changed_file.size(), candidates.size());
  }
  std::vector<std::string> untouched;
  try {
    untouched = cases_untouched_by_functions(source, request.since, candidates, changed_code,
                                             selection.recorded_functions);
  } catch (const UserError& e) {
    std::fprintf(stderr,
                 "capmap: --changed-since %s: cannot compare functions (%s); every case that "
                 "runs a changed file runs\n",
                 request.since.c_str(), e.what());
    return;
  }
  const std::set<std::string> keep(untouched.begin(), untouched.end());
  auto end =
      std::remove_if(selection.to_run.begin(), selection.to_run.end(),
                     [&](const nlohmann::json& c) { return keep.contains(c.value("name", "")); });
  const auto removed = static_cast<std::size_t>(selection.to_run.end() - end);
  selection.to_run.erase(end, selection.to_run.end());
  selection.kept += removed;
  selection.functions_unchanged += removed;
  selection.library_changed -= std::min(selection.library_changed, removed);
}

}  // namespace capmap

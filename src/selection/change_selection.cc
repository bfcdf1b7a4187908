#include "selection/change_selection.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>

#include "common/child_process.h"
#include "common/user_error.h"
#include "store/run_difference.h"

namespace capmap {
namespace {

using nlohmann::json;

std::string location_file(const json& c) {
  std::string where = c.value("where", "");
  auto colon = where.rfind(':');
  return colon == std::string::npos ? where : where.substr(0, colon);
}

// The tags a probe reads (`dynamic:…` chooses what the dynamic paths vary); the others only
// choose which cases a run takes, so a case given or relieved of `quick` keeps its cells.
std::vector<std::string> measured_tags(const json& tags) {
  std::vector<std::string> out;
  if (!tags.is_array()) return out;
  for (const auto& tag : tags) {
    if (tag.is_string() && tag.get<std::string>().starts_with("dynamic:")) out.push_back(tag);
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool definition_changed(const json& now, const json& before) {
  for (const auto& [key, value] : now.items()) {
    // The place moves when lines above it change; an edit of the file selects it anyway.
    if (key == "where" || key == "paths") continue;
    auto it = before.find(key);
    if (it == before.end()) continue;
    if (key == "tags") {
      if (measured_tags(*it) != measured_tags(value)) return true;
    } else if (*it != value) {
      return true;
    }
  }
  return false;
}

bool any_named(const std::vector<std::string>& changed, const std::string& recorded) {
  for (const auto& file : changed) {
    if (names_file(file, recorded)) return true;
  }
  return false;
}

// True when `pred` holds for one of the files the known case recorded.
template <typename Pred>
bool any_recorded(const json& known_case, Pred pred) {
  for (const auto& [file, hash] : known_case.at("files").items()) {
    if (pred(file)) return true;
  }
  return false;
}

// A known result for every path asked for (a `missing` one does not count).
bool has_results(const json& known_case, const std::vector<std::string>& paths) {
  auto known_paths = known_case.find("paths");
  if (known_paths == known_case.end() || !known_paths->is_object()) return false;
  return std::all_of(paths.begin(), paths.end(), [&](const std::string& p) {
    auto r = known_paths->find(p);
    return r != known_paths->end() && r->is_object() && r->value("status", "missing") != "missing";
  });
}

}  // namespace

bool names_file(const std::string& changed, const std::string& recorded) {
  if (recorded.empty()) return false;
  if (changed == recorded) return true;
  return changed.size() > recorded.size() && changed.ends_with(recorded) &&
         changed[changed.size() - recorded.size() - 1] == '/';
}

bool cites_a_line_of(const json& known_case, const std::string& file) {
  auto found = known_case.find("paths");
  if (found == known_case.end() || file.empty()) return false;
  const std::string text = found->dump();
  const std::string cited = file + ":";
  for (auto at = text.find(cited); at != std::string::npos; at = text.find(cited, at + 1)) {
    std::size_t next = at + cited.size();
    bool whole = at == 0 || !(std::isalnum(static_cast<unsigned char>(text[at - 1])) ||
                              text[at - 1] == '_' || text[at - 1] == '.');
    if (whole && next < text.size() && std::isdigit(static_cast<unsigned char>(text[next]))) {
      return true;
    }
  }
  return false;
}

ChangeSelection select_changed_cases(const std::vector<json>& cases, const json* known,
                                     const json& run, const std::vector<std::string>& changed_files,
                                     const std::vector<std::string>& paths,
                                     const std::vector<std::string>& lines_moved) {
  ChangeSelection selection;
  std::map<std::string, const json*> known_cases;
  if (known) {
    selection.everything_reason = version_difference(known->at("header"), run);
    for (const auto& entry : known->at("cases"))
      known_cases.emplace(entry.value("name", ""), &entry);
  }
  for (const auto& c : cases) {
    auto found = known_cases.find(c.value("name", ""));
    const json* before = found == known_cases.end() ? nullptr : found->second;
    bool run_it = true;
    if (!selection.everything_reason.empty()) {
      // every case runs; describe_change_selection says why
    } else if (!before) {
      ++selection.new_cases;
    } else if (definition_changed(c, *before)) {
      ++selection.definition_changed;
    } else if (c.contains("skip") && c["skip"].is_string()) {
      run_it = false;  // never dispatched: its record is the reason, whatever changed
    } else if (!has_results(*before, paths)) {
      ++selection.no_result;
    } else if (!before->contains("files") || !(*before)["files"].is_object()) {
      ++selection.no_file_list;
    } else if (!(c.contains("inputs") && before->contains("inputs")) &&
               any_named(changed_files, location_file(c))) {
      // Without digests on both sides, any edit of the file may have changed what the case
      // computes on; with them, definition_changed has already compared it.
      ++selection.registry_changed;
    } else if (any_recorded(*before, [&](const std::string& file) {
                 return any_named(changed_files, file);
               })) {
      ++selection.library_changed;
      selection.runs_changed_file.push_back(c.value("name", ""));
      if (auto f = before->find("functions"); f != before->end() && f->is_object()) {
        selection.recorded_functions.emplace(c.value("name", ""), *f);
      }
    } else if (any_recorded(*before, [&](const std::string& file) {
                 return any_named(lines_moved, file) && cites_a_line_of(*before, file);
               })) {
      ++selection.lines_moved;
    } else {
      run_it = false;
    }
    if (run_it) {
      selection.to_run.push_back(c);
    } else {
      ++selection.kept;
    }
  }
  return selection;
}

std::vector<std::string> files_changed_since(const std::string& rev) {
  int top_status = 0;
  std::string top = run_and_capture({"git", "rev-parse", "--show-toplevel"}, top_status, true);
  if (top_status != 0) {
    throw UserError(
        fmt::format("--changed-since {}: the current folder is not in a git checkout", rev));
  }
  while (!top.empty() && (top.back() == '\n' || top.back() == '\r')) top.pop_back();
  int status = 0;
  const std::string listing =
      run_and_capture({"git", "diff", "--name-only", "-z", rev, "--"}, status, true);
  if (status != 0) {
    throw UserError(
        fmt::format("--changed-since {}: git diff failed (exit {}): not a revision "
                    "of the checkout at {}?",
                    rev, status, top));
  }
  std::vector<std::string> files;
  std::size_t start = 0;
  while (start < listing.size()) {
    std::size_t end = listing.find('\0', start);
    if (end == std::string::npos) end = listing.size();
    if (end > start) files.push_back(top + "/" + listing.substr(start, end - start));
    start = end + 1;
  }
  return files;
}

std::string describe_change_selection(const ChangeSelection& s) {
  std::size_t total = s.to_run.size() + s.kept;
  if (!s.everything_reason.empty()) {
    return fmt::format(
        "all {} cases run: versions or settings differ from the earlier results ({})", total,
        s.everything_reason);
  }
  std::vector<std::string> why;
  auto add = [&](std::size_t n, const char* what) {
    if (n) why.push_back(fmt::format("{} {}", n, what));
  };
  add(s.library_changed, "run a changed library file");
  add(s.lines_moved, "cite a line that moved");
  add(s.registry_changed, "defined in a changed registry file");
  add(s.definition_changed, "changed definition");
  add(s.new_cases, "new");
  add(s.no_result, "without an earlier result");
  add(s.no_file_list, "without a file list");
  std::string reasons;
  for (const auto& w : why) reasons += (reasons.empty() ? "" : ", ") + w;
  std::string narrowed;
  if (s.functions_unchanged) {
    narrowed = fmt::format("; {} more run a changed file but none of its changed functions",
                           s.functions_unchanged);
  }
  return fmt::format("{} of {} cases selected by the change{}{}", s.to_run.size(), total,
                     reasons.empty() ? "" : " (" + reasons + ")", narrowed);
}

}  // namespace capmap

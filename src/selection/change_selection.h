#pragma once
// `capmap run --changed FILE... | --changed-since REV`: which cases a change can
// affect. A case runs again when a library file it executed (its `files` in a
// known snapshot) or its registry file changed, when it is new, when its
// registry definition or its known result is missing or differs, or when the
// versions, settings or library package version changed (then every case runs).
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace capmap {

struct ChangeSelection {
  std::vector<nlohmann::json> to_run;  // CASE objects, in the order given
  std::size_t kept = 0;                // cases the change cannot affect
  // Why the others run; a case counts under the first reason that applies.
  std::size_t new_cases = 0, definition_changed = 0, no_result = 0, no_file_list = 0,
              registry_changed = 0, library_changed = 0, lines_moved = 0;
  // The names of the cases counted under library_changed, which narrow_to_functions
  // (function_changes.h) may carry over after all.
  std::vector<std::string> runs_changed_file;
  // Of those, the functions each one's eager call entered, where the known snapshot recorded
  // them ({"pkg/path.py": "helper Class.method"}): narrow_to_functions need not trace them.
  std::map<std::string, nlohmann::json> recorded_functions;
  std::size_t functions_unchanged = 0;  // kept: they run a changed file, none of its changed code
  std::string everything_reason;  // non-empty when every case runs (e.g. torch 2.12.0 vs 2.13.0)
};

// `known` is a snapshot (a baseline, or the store's previous run) or null when
// there is none; `run` is {"library","versions","settings"} of this run.
// A case runs when it executes a file of `changed_files` (its code changed),
// or when one of its known results cites a line of a file of `lines_moved`
// (same code, other lines: docstrings, comments, layout), so that no kept
// result points at a line that moved.
ChangeSelection select_changed_cases(const std::vector<nlohmann::json>& cases,
                                     const nlohmann::json* known, const nlohmann::json& run,
                                     const std::vector<std::string>& changed_files,
                                     const std::vector<std::string>& paths,
                                     const std::vector<std::string>& lines_moved = {});

// True when a result of `known_case` names `file:LINE` (a frame, a location,
// a graph break's place).
bool cites_a_line_of(const nlohmann::json& known_case, const std::string& file);

// True when `changed` (a path as typed or listed by git, absolute or relative)
// names the file recorded as `recorded` (relative, e.g. kornia/filters/gaussian.py):
// equal, or ending with "/" + recorded.
bool names_file(const std::string& changed, const std::string& recorded);

// The files `git diff --name-only REV` lists for the working tree of the current
// folder (committed and uncommitted changes), as absolute paths. Throws UserError
// naming REV when git fails.
std::vector<std::string> files_changed_since(const std::string& rev);

// One line for stderr: "12 of 1371 cases selected by the change (3 run a changed file, ...)".
std::string describe_change_selection(const ChangeSelection& selection);

}  // namespace capmap

#pragma once
// What the user said changed: `--changed FILE...`, `--changed-since REV`,
// `--changed-auto` (any together), turned into the list of changed files that
// select_changed_cases (change_selection.h) compares with a known snapshot.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "selection/changed_files.h"

namespace capmap {

struct ChangeRequest {
  std::vector<std::string> files;  // --changed, as typed
  std::string since;               // --changed-since REV, or empty
  bool by_hash = false;            // --changed-auto
  // --changed-since narrows by function the cases whose functions the known snapshot
  // recorded; --by-function traces the others to narrow them too, --by-file narrows none.
  bool by_function = false;
  bool by_file = false;

  bool any() const { return !files.empty() || !since.empty() || by_hash; }
};

// The files named by hand and by git, absolute. Runs git; throws UserError
// when it fails. Call before any worker starts, so a typo costs nothing.
// Of git's files, those whose code is the same at `since` as now (an edit of
// docstrings, comments or layout, by `PYTHON -m capmap.selection.code_change`) are
// `lines_moved`, and stderr gets one line naming them; files named by hand
// count as changed code.
ChangedFiles named_changed_files(const ChangeRequest& request, const std::string& python);

// With by_hash, adds to `files` the files of `known` (a snapshot, or null:
// nothing to compare) whose installed content differs, hashed by
// `python -m capmap.tracing.file_trace LIBRARY`; stderr gets one line saying how many.
void add_files_changed_by_hash(const ChangeRequest& request, const nlohmann::json* known,
                               const std::string& python, const std::string& library,
                               ChangedFiles& files);

}  // namespace capmap

#pragma once
// `--changed-auto`: the change found without git. Every case of a known
// snapshot records the library files it executed with a hash of their code
// (older snapshots: of their content); the files whose installed code and
// content both hash differently now (or that are gone) are the change, so a
// pull request job needs no history, only the baseline, and an edit of
// docstrings, comments or layout selects nothing.
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "selection/changed_files.h"

namespace capmap {

// file → the hashes the snapshot's cases recorded for it (one, unless the
// snapshot merged runs of different revisions).
std::map<std::string, std::vector<std::string>> recorded_hashes(const nlohmann::json& snapshot);

// The recorded files (each hash `CONTENT.CODE`, or `CONTENT` from an older
// capmap) compared with `now` ([content, code]; empty: gone), sorted: `code`
// when neither hash matches a recorded one, `lines_moved` when only the code
// hash does. A file missing from `now` counts as changed.
ChangedFiles files_with_new_hashes(const std::map<std::string, std::vector<std::string>>& recorded,
                                   const std::map<std::string, std::vector<std::string>>& now);

// The hashes of the installed library's files now (content, then code), from
// `PYTHON -m capmap.tracing.file_trace LIBRARY FILE...`. Throws UserError when the
// library cannot be found or the answer cannot be read.
std::map<std::string, std::vector<std::string>> installed_hashes(
    const std::string& python, const std::string& library, const std::vector<std::string>& files);

// Of `files` (absolute, in the git checkout of the current folder), those
// whose code at `rev` is the same as now, by `PYTHON -m capmap.selection.code_change`.
// Throws UserError when the answer cannot be had.
std::vector<std::string> files_with_unchanged_code(const std::string& python,
                                                   const std::string& rev,
                                                   const std::vector<std::string>& files);

// Both steps: the files of `known` that changed in the installed `library`.
ChangedFiles files_changed_by_hash(const std::string& python, const std::string& library,
                                   const nlohmann::json& known);

}  // namespace capmap

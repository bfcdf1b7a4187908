#pragma once
// `--changed-auto`: the change found without git. Every case of a known
// snapshot records the library files it executed with a content hash; the
// files whose installed content hashes differently now (or that are gone) are
// the change, so a pull request job needs no history, only the baseline.
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace capmap {

// file → the hashes the snapshot's cases recorded for it (one, unless the
// snapshot merged runs of different revisions).
std::map<std::string, std::vector<std::string>> recorded_hashes(const nlohmann::json& snapshot);

// The recorded files whose `now` hash (empty: gone) matches none of the
// recorded ones, sorted. A file missing from `now` counts as changed.
std::vector<std::string> files_with_new_hashes(
    const std::map<std::string, std::vector<std::string>>& recorded,
    const std::map<std::string, std::string>& now);

// The hashes of the installed library's files now, from
// `PYTHON -m capmap.file_trace LIBRARY FILE...`. Throws UserError when the
// library cannot be found or the answer cannot be read.
std::map<std::string, std::string> installed_hashes(const std::string& python,
                                                    const std::string& library,
                                                    const std::vector<std::string>& files);

// Both steps: the files of `known` that changed in the installed `library`.
std::vector<std::string> files_changed_by_hash(const std::string& python,
                                               const std::string& library,
                                               const nlohmann::json& known);

}  // namespace capmap

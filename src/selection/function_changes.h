#pragma once
// `--changed-since REV`, function by function: of the cases selected because
// they run a changed library file, those whose eager call enters none of the
// file's changed functions (nor a function naming one) are carried over after
// all. `PYTHON -m capmap.function_change` traces each case's call again and
// compares the functions' code at REV and now; a change outside any function
// (imports, module or class statements, decorators, signatures) keeps every
// case of the file.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "selection/change_request.h"
#include "selection/change_selection.h"

namespace capmap {

// What the worker needs to load and call the cases as a run does.
struct CaseSource {
  std::string python;
  std::vector<std::string> registries;
  nlohmann::json settings = nlohmann::json::object();
  int jobs = 0;  // cases traced at once; 0: one per core
};

// The names of `cases` that enter none of the functions that changed in
// `files` since `rev`. Throws UserError when the answer cannot be had.
std::vector<std::string> cases_untouched_by_functions(const CaseSource& source,
                                                      const std::string& rev,
                                                      const std::vector<std::string>& cases,
                                                      const std::vector<std::string>& files);

// Narrows `selection` in place when `request` is `--changed-since REV
// --by-function` (without --changed or --changed-auto): its `runs_changed_file` cases
// that the functions leave untouched move from to_run to kept. A failure of
// the check costs only the narrowing: stderr says so and every case stays.
void narrow_to_functions(ChangeSelection& selection, const ChangeRequest& request,
                         const CaseSource& source, const std::vector<std::string>& changed_code);

}  // namespace capmap

#pragma once
// `--changed-since REV`, function by function: of the cases selected because
// they run a changed library file, those whose eager call enters none of the
// file's changed functions (nor a function naming one) are carried over after
// all. `PYTHON -m capmap.selection.function_change` compares the functions' code at REV
// and now, against the functions each case's eager call entered: as the
// baseline recorded them, or, for a case without that record, traced again;
// a change outside any function (imports, module or class statements,
// decorators, signatures) keeps every case of the file.
#include <map>
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
// `files` since `rev`; `recorded` holds the functions the baseline recorded for
// some of them (the others are traced). Throws UserError when the answer cannot
// be had.
std::vector<std::string> cases_untouched_by_functions(
    const CaseSource& source, const std::string& rev, const std::vector<std::string>& cases,
    const std::vector<std::string>& files,
    const std::map<std::string, nlohmann::json>& recorded = {});

// Narrows `selection` in place when `request` is `--changed-since REV` (without
// --changed, --changed-auto or --by-file): of its `runs_changed_file` cases, those
// whose functions the known snapshot recorded, and with --by-function every one,
// move from to_run to kept when the functions leave them untouched. A failure of
// the check costs only the narrowing: stderr says so and every case stays.
void narrow_to_functions(ChangeSelection& selection, const ChangeRequest& request,
                         const CaseSource& source, const std::vector<std::string>& changed_code);

}  // namespace capmap

#pragma once
// The library code a case ran, gathered from its path records into the case's entry:
// `files` ({"pkg/x.py": hash}) and `functions` ({"pkg/x.py": "helper Class.method"}).
// The eager record holds what the call ran; a capture path's record holds what its
// trace entered beyond that (a non-strict export runs library code the eager call
// skips; dynamo inlines some). `run --changed` and `--by-function` select by them.
#include <nlohmann/json.hpp>
#include <string>

#include "merge/baseline.h"

namespace capmap {

// Adds `more` to `into`: every file of either, a file's functions being the union of
// both sides' space-separated names, sorted. A file's hash stays the first one seen.
void add_case_code(nlohmann::json& into, const nlohmann::json& more, bool functions);

// Moves `files` and `functions` from each record under entry["paths"] to the entry,
// as the union over the records. When a record was carried from `carry_from`, the
// baseline's case contributes its own (a carried cell's code is what the baseline ran).
void gather_case_code(nlohmann::json& entry, const std::string& name, const Baseline* carry_from);

}  // namespace capmap

#pragma once
// The JSON types of the snapshot fields that merge, diff, render and the reports
// read. A snapshot is outside input (a file a user hands over, a baseline from
// CI), so each reader checks these before using a field: a null, a number or a
// list where a string belongs fails with one line naming the field, never deep
// inside a report.
#include <nlohmann/json.hpp>
#include <string>

namespace capmap {

// Throws UserError ("NAME: not a capmap snapshot: case 'x' path 'onnx': 'cause'
// should be a string, not null") for the first field of a known name whose type
// is wrong. Unknown fields (a capture path's own record fields) are not checked.
// A document without a 'header' object and a 'cases' list is left to the caller.
void check_snapshot_fields(const nlohmann::json& snapshot, const std::string& name);

// The first field of a CASE object (as a snapshot or a worker's hello lists
// it, paths aside) whose type is wrong, as "'group' should be a string, not
// null"; empty when there is none.
std::string case_field_problem(const nlohmann::json& entry);

}  // namespace capmap

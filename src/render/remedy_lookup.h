#pragma once
// Remedies for snapshots merged before the cause rules carried them: a cause
// text is matched against each rule's cause template ("No ONNX lowering for
// {function:1} (aten.{1})") and the rule's remedy is filled from what the
// template's fields matched.
#include <string>
#include <utility>
#include <vector>

#include "render/page_model.h"

namespace capmap {

// (cause template, remedy template) pairs, first match wins.
using RemedyTemplates = std::vector<std::pair<std::string, std::string>>;

// The remedy for a cause text; empty when no template matches or a field the
// remedy names is not in the cause.
std::string remedy_for(const std::string& cause_text, const RemedyTemplates& templates);

// Gives every cause line and tally that has no remedy the one its text matches.
void fill_remedies(PageModel& model, const RemedyTemplates& templates);

}  // namespace capmap

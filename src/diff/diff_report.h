#pragma once
// Views of a SnapshotDiff: text for a terminal, Markdown for a pull request
// comment, JSON for tools.
#include <nlohmann/json.hpp>
#include <string>

#include "diff/snapshot_diff.h"

namespace capmap {

std::string diff_as_text(const SnapshotDiff& diff);
std::string diff_as_markdown(const SnapshotDiff& diff);
nlohmann::json diff_as_json(const SnapshotDiff& diff);

}  // namespace capmap

#pragma once
// The on-disk form of snapshots and survey files: sorted keys, 2-space indent,
// trailing newline, so the same content is always the same bytes.
#include <nlohmann/json.hpp>
#include <string>

namespace capmap {

std::string snapshot_text(const nlohmann::json& snapshot);

// ISO 8601 UTC from $SOURCE_DATE_EPOCH when set (UserError when it is not a
// number), else `fallback`.
std::string generation_time(const std::string& fallback);

}  // namespace capmap

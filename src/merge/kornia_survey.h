#pragma once
// The layout of Kornia's own survey data file
// (docs/source/_data/export_support.json), built from a snapshot so a docs
// pipeline that reads that file can switch to capmap unchanged.
#include <nlohmann/json.hpp>

namespace capmap {

nlohmann::json kornia_survey(const nlohmann::json& snapshot);

}  // namespace capmap

#pragma once
// How a snapshot path carries the verdict of `capmap repro --check` on its
// case × path (`reproduced`, `repro_outcome`, `repro_script`): merge copies it
// from the store's `repro` table, `capmap repro --check SNAPSHOT` writes it in.
#include <nlohmann/json.hpp>

#include "store/repro_table.h"

namespace capmap {

// Adds the check's fields to a snapshot path (a RECORD object).
void add_repro_fields(nlohmann::json& path, const ReproResult& check);

}  // namespace capmap

#pragma once
// The verdict of `capmap repro --check` on one case × path, and how a snapshot
// path carries it (`reproduced`, `repro_outcome`, `repro_script`).
#include <nlohmann/json.hpp>
#include <string>

namespace capmap {

struct ReproMark {
  std::string record_created;  // the checked record's `created`; empty for a snapshot
  bool reproduced = false;
  std::string outcome;
  std::string script;
};

// Adds the mark's fields to a snapshot path (a RECORD object).
void add_repro_fields(nlohmann::json& path, const ReproMark& mark);

}  // namespace capmap

#include "merge/repro_marks.h"

namespace capmap {

void add_repro_fields(nlohmann::json& path, const ReproResult& check) {
  path["reproduced"] = check.reproduced;
  path["repro_outcome"] = check.outcome;
  path["repro_script"] = check.script;
}

}  // namespace capmap

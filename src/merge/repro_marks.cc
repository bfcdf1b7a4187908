#include "merge/repro_marks.h"

namespace capmap {

void add_repro_fields(nlohmann::json& path, const ReproMark& mark) {
  path["reproduced"] = mark.reproduced;
  path["repro_outcome"] = mark.outcome;
  path["repro_script"] = mark.script;
}

}  // namespace capmap

#pragma once
// The data the page script filters: cases, sections and paths as compact JSON.
// The HTML page and the Sphinx page embed the same structure.
#include <nlohmann/json.hpp>

#include "render/page_model.h"

namespace capmap {

nlohmann::json page_data(const PageModel& model);

}  // namespace capmap

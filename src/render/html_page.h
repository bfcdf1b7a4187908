#pragma once
// The self-contained compatibility page: one HTML file, no network.
#include <string>

#include "render/page_model.h"

namespace capmap {

std::string render_html_page(const PageModel& model);

// The CSS class of a status badge ("st-ok", "st-na").
std::string status_class(const std::string& page_status);

}  // namespace capmap

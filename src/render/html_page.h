#pragma once
// The self-contained compatibility page: one HTML file, no network.
#include <string>

#include "render/page_model.h"

namespace capmap {

// `changes_section`: the Changes section's HTML (changes_section.h), or empty.
std::string render_html_page(const PageModel& model, const std::string& changes_section = {});

// The CSS class of a status badge ("st-ok", "st-na").
std::string status_class(const std::string& page_status);

}  // namespace capmap

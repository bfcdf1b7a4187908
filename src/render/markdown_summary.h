#pragma once
// A compact Markdown summary (cards, packages, top causes) for a README or a
// pull request.
#include <cstddef>
#include <string>
#include <string_view>

#include "render/page_model.h"

namespace capmap {

// At most `max_causes` causes are listed in view; the rest fold into a <details> block.
// `changes` (a Changes section, see changes_section.h) comes right after the cards.
std::string render_markdown_summary(const PageModel& model, std::size_t max_causes = 10,
                                    const std::string& changes = {});

// Text safe in a Markdown table cell: no markup, no HTML, no line break.
std::string escape_markdown(std::string_view text);

}  // namespace capmap

#pragma once
// Wording and number formatting shared by the HTML, Sphinx and Markdown pages.
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "render/page_model.h"

namespace capmap {

// "81.2 %", or "–" when nothing was probed.
std::string percent_text(std::size_t part, std::size_t whole);

// "Kornia 0.9.0"; the library name alone when the version is unknown.
std::string library_title(const PageHeader& header);

// Label/value pairs for the page header, in display order.
std::vector<std::pair<std::string, std::string>> header_facts(const PageHeader& header);

// The statuses a page can show, each with what it means, in legend order.
const std::vector<std::pair<std::string, std::string>>& status_legend();

// "ONNX, export" for the paths a cause line covers.
std::string cause_paths_text(const PageModel& model, const CauseLine& cause);

// Title of the card counting cases that pass every path ("All three paths").
std::string all_pass_title(const PageModel& model);

}  // namespace capmap

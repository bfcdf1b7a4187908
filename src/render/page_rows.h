#pragma once
// What the page reads of a snapshot: its header, the capture paths it shows and
// each case as a row. A field of the wrong type is one line naming it.
#include <cstddef>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "render/page_model.h"
#include "render/url_templates.h"

namespace capmap {

PageHeader read_header(const nlohmann::json& header);

// The capture paths the page shows, in the header's order (the reference, eager, is not one).
std::vector<PagePath> read_paths(const nlohmann::json& header);

// Case number `index` (0-based, for messages) as a row of the page. `packages`:
// the library's packages, every folder of a file some case ran.
CaseRow read_case(const nlohmann::json& c, std::size_t index, const std::vector<PagePath>& paths,
                  const std::string& revision, const UrlTemplates& urls,
                  const std::set<std::string>& packages);

}  // namespace capmap

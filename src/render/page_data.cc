#include "render/page_data.h"

namespace capmap {

using nlohmann::json;

json page_data(const PageModel& model) {
  json paths = json::array();
  for (const PagePath& p : model.paths) {
    paths.push_back({{"id", p.id}, {"label", p.label}, {"short", p.short_label}});
  }
  json sections = json::array();
  for (const CaseSection& s : model.sections) {
    sections.push_back({{"title", section_title(s)}, {"package", s.package}, {"cases", s.cases}});
  }
  // Short keys: the 5,000-case page carries this list once per case.
  json cases = json::array();
  for (const CaseRow& row : model.cases) {
    json causes = json::array();
    for (const CauseLine& c : row.causes) {
      json cause = {{"p", c.paths}, {"t", c.text}, {"g", c.category}};
      if (!c.location.empty()) cause["l"] = c.location;
      if (!c.location_url.empty()) cause["h"] = c.location_url;
      causes.push_back(std::move(cause));
    }
    json item = {{"n", row.name},
                 {"o", row.operator_name},
                 {"k", row.package},
                 {"st", row.statuses},
                 {"c", std::move(causes)}};
    if (!row.variant.empty()) item["v"] = row.variant;
    if (!row.note.empty()) item["note"] = row.note;
    if (!row.ref.empty()) item["ref"] = row.ref;
    if (!row.docs_url.empty()) item["u"] = row.docs_url;
    if (row.graph_breaks) item["gb"] = *row.graph_breaks;
    cases.push_back(std::move(item));
  }
  return {
      {"paths", std::move(paths)}, {"sections", std::move(sections)}, {"cases", std::move(cases)}};
}

}  // namespace capmap

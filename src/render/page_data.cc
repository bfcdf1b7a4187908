#include "render/page_data.h"

namespace capmap {
namespace {

using nlohmann::json;

// The link the page script would derive from the templates for a location
// "file:line" (see derive() in page.js); empty when it derives none.
std::string derived_source_url(const PageModel& model, const std::string& location) {
  auto colon = location.rfind(':');
  if (colon == std::string::npos || colon + 1 == location.size()) return {};
  for (std::size_t i = colon + 1; i < location.size(); ++i) {
    if (location[i] < '0' || location[i] > '9') return {};
  }
  return expand_source_url(model.urls.source_url, model.header.revision, location.substr(0, colon),
                           location.substr(colon + 1));
}

}  // namespace

json page_data(const PageModel& model) {
  json paths = json::array();
  for (const PagePath& p : model.paths) {
    paths.push_back({{"id", p.id}, {"label", p.label}, {"short", p.short_label}});
  }
  json sections = json::array();
  for (const CaseSection& s : model.sections) {
    sections.push_back({{"title", section_title(s)}, {"package", s.package}, {"cases", s.cases}});
  }
  // Short keys, and no field the script can derive (name, package, links a
  // template gives): the 5,000-case page carries this list once per case.
  json cases = json::array();
  for (const CaseRow& row : model.cases) {
    json causes = json::array();
    for (const CauseLine& c : row.causes) {
      json cause = {{"p", c.paths}, {"t", c.text}, {"g", c.category}};
      if (!c.location.empty()) cause["l"] = c.location;
      if (c.location_url != derived_source_url(model, c.location)) cause["h"] = c.location_url;
      causes.push_back(std::move(cause));
    }
    json item = {{"o", row.operator_name}, {"st", row.statuses}, {"c", std::move(causes)}};
    std::string plain_name =
        row.variant.empty() ? row.operator_name : row.operator_name + "[" + row.variant + "]";
    if (row.name != plain_name) item["n"] = row.name;
    if (!row.variant.empty()) item["v"] = row.variant;
    if (!row.note.empty()) item["note"] = row.note;
    if (!row.ref.empty()) item["ref"] = row.ref;
    if (row.docs_url != expand_docs_url(model.urls.docs_url, row.ref)) item["u"] = row.docs_url;
    if (row.graph_breaks) item["gb"] = *row.graph_breaks;
    cases.push_back(std::move(item));
  }
  return {{"paths", std::move(paths)},           {"sections", std::move(sections)},
          {"cases", std::move(cases)},           {"revision", model.header.revision},
          {"source_url", model.urls.source_url}, {"docs_url", model.urls.docs_url}};
}

}  // namespace capmap

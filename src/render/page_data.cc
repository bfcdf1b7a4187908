#include "render/page_data.h"

#include <algorithm>

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

// Repro scripts end with the same helpers copied from capmap; the page keeps
// one copy of each distinct ending ("rt") and each check names its own:
// [path index, reproduced 0|1, outcome, script up to the ending, ending index or -1].
json repro_entries(const std::vector<ReproCheck>& checks, std::vector<std::string>& tails) {
  static const std::string kTailMarker = "\n# capmap's output flattening and comparison";
  json entries = json::array();
  for (const ReproCheck& check : checks) {
    std::string body = check.script;
    long tail_index = -1;
    if (auto at = body.find(kTailMarker); at != std::string::npos) {
      std::string tail = body.substr(at);
      body.resize(at);
      auto it = std::find(tails.begin(), tails.end(), tail);
      tail_index = it - tails.begin();
      if (it == tails.end()) tails.push_back(std::move(tail));
    }
    entries.push_back({check.path, check.reproduced ? 1 : 0, check.outcome, body, tail_index});
  }
  return entries;
}

// A name of this library the search box offers as its example: the first case's
// public name that reaches into a package (kornia.color.rgb_to_grayscale), so
// that another library's page never shows Kornia's names.
std::string search_example(const PageModel& model) {
  std::string first;
  for (const CaseRow& row : model.cases) {
    const std::string& name = row.public_name.qualified;
    if (name.empty()) continue;
    if (std::count(name.begin(), name.end(), '.') >= 2) return name;
    if (first.empty()) first = name;
  }
  return first.empty() ? model.library_root : first;
}

}  // namespace

json page_data(const PageModel& model) {
  json paths = json::array();
  for (const PagePath& p : model.paths) {
    paths.push_back({{"id", p.id}, {"label", p.label}, {"short", p.short_label}});
  }
  json sections = json::array();
  std::vector<std::size_t> section_of(model.cases.size());
  for (std::size_t si = 0; si < model.sections.size(); ++si) {
    for (std::size_t ci : model.sections[si].cases) section_of[ci] = si;
  }
  for (const CaseSection& s : model.sections) {
    sections.push_back({{"title", section_title(s)}, {"package", s.package}, {"cases", s.cases}});
  }
  // Short keys, and no field the script can derive (name, package, links a
  // template gives): the 5,000-case page carries this list once per case.
  json cases = json::array();
  std::vector<std::string> repro_tails;
  // A remedy belongs to its cause text: kept once, not once per case.
  json remedies = json::object();
  for (std::size_t index = 0; index < model.cases.size(); ++index) {
    const CaseRow& row = model.cases[index];
    json causes = json::array();
    for (const CauseLine& c : row.causes) {
      json cause = {{"p", c.paths}, {"t", c.text}, {"g", c.category}};
      if (!c.location.empty()) cause["l"] = c.location;
      if (c.location_url != derived_source_url(model, c.location)) cause["h"] = c.location_url;
      // Kind: absent for a failure, "b" a graph break, "n" not run, "o" a note.
      if (c.kind == CauseKind::graph_break) cause["k"] = "b";
      if (c.kind == CauseKind::not_probed) cause["k"] = "n";
      if (c.kind == CauseKind::note) cause["k"] = "o";
      if (!c.excerpt.empty() && c.excerpt != c.text) cause["x"] = c.excerpt;
      if (!c.measured.empty()) cause["m"] = c.measured;
      if (!c.remedy.empty()) remedies[c.text] = c.remedy;
      causes.push_back(std::move(cause));
    }
    json item = {{"o", row.operator_name}, {"st", row.statuses}, {"c", std::move(causes)}};
    std::string plain_name =
        row.variant.empty() ? row.operator_name : row.operator_name + "[" + row.variant + "]";
    if (row.name != plain_name) item["n"] = row.name;
    if (!row.variant.empty()) item["v"] = row.variant;
    if (!row.note.empty()) item["note"] = row.note;
    if (!row.flattened.empty()) item["fl"] = row.flattened;
    if (!row.ref.empty()) item["ref"] = row.ref;
    // The public name is the section's package and the operator unless said otherwise.
    std::string derived = model.library_root + "." +
                          section_title(model.sections[section_of[index]]) + "." +
                          row.operator_name;
    if (row.public_name.qualified != derived) {
      item["pn"] = row.public_name.qualified;
    }
    if (row.docs_url != expand_docs_url(model.urls.docs_url, row.ref)) item["u"] = row.docs_url;
    if (row.graph_breaks) item["gb"] = *row.graph_breaks;
    // Figures by path index, only where a path wrote one.
    json figures = json::object();
    for (std::size_t pi = 0; pi < row.figures.size(); ++pi) {
      if (!row.figures[pi].empty()) figures[std::to_string(pi)] = row.figures[pi];
    }
    if (!figures.empty()) item["fg"] = std::move(figures);
    if (!row.repro.empty()) item["r"] = repro_entries(row.repro, repro_tails);
    cases.push_back(std::move(item));
  }
  json data = {{"root", model.library_root},        {"paths", std::move(paths)},
               {"sections", std::move(sections)},   {"cases", std::move(cases)},
               {"revision", model.header.revision}, {"source_url", model.urls.source_url},
               {"docs_url", model.urls.docs_url}};
  data["ex"] = search_example(model);
  if (!repro_tails.empty()) data["rt"] = repro_tails;
  if (!remedies.empty()) data["rm"] = std::move(remedies);
  // The case count under the search says when the run covered part of the registry.
  if (model.header.selection_partial) data["selection"] = model.header.selection;
  return data;
}

}  // namespace capmap

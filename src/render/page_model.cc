#include "render/page_model.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>

#include "common/user_error.h"
#include "render/page_rows.h"
#include "render/page_text.h"

namespace capmap {
namespace {

using nlohmann::json;

bool all_pass(const CaseRow& row) {
  return !row.statuses.empty() &&
         std::all_of(row.statuses.begin(), row.statuses.end(),
                     [](const std::string& s) { return is_pass_status(s); });
}

bool all_probed(const CaseRow& row) {
  return !row.statuses.empty() && std::none_of(row.statuses.begin(), row.statuses.end(),
                                               [](const std::string& s) { return s == "n/a"; });
}

void tally(const PageModel& model, const CaseRow& row, std::vector<PathTally>& per_path) {
  per_path.resize(model.paths.size());
  for (std::size_t i = 0; i < model.paths.size(); ++i) {
    if (row.statuses[i] == "n/a") continue;
    ++per_path[i].probed;
    if (is_pass_status(row.statuses[i])) ++per_path[i].supported;
    if (is_constant_status(row.statuses[i])) ++per_path[i].constant;
    if (is_failure_status(row.statuses[i])) ++per_path[i].failed;
  }
}

// The public package below the library and the case's package: "transform" for
// kornia.geometry.transform in package geometry. Without a ref, the snapshot's section.
std::string public_section(const CaseRow& row, const std::string& root) {
  const std::string& module = row.public_name.module;
  if (module.empty()) return row.section;
  std::string prefix = root + "." + row.package;
  if (module == prefix || module == root) return {};
  if (module.rfind(prefix + ".", 0) == 0) return module.substr(prefix.size() + 1);
  return module.rfind(root + ".", 0) == 0 ? module.substr(root.size() + 1) : module;
}

std::string lower(std::string text) {
  for (char& c : text) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return text;
}

void count_cause(std::vector<CauseTally>& tallies, std::map<std::string, std::size_t>& index,
                 const CauseLine& line, std::size_t path_count, std::set<std::string>& counted) {
  auto [it, fresh] = index.emplace(line.text, tallies.size());
  if (fresh) {
    tallies.push_back(
        {line.text, line.category, std::vector<std::size_t>(path_count), 0, line.remedy});
  }
  CauseTally& t = tallies[it->second];
  for (std::size_t p : line.paths) ++t.per_path[p];
  if (counted.insert(line.text).second) ++t.cases;
}

void sort_tallies(std::vector<CauseTally>& tallies) {
  std::stable_sort(tallies.begin(), tallies.end(), [](const CauseTally& a, const CauseTally& b) {
    if (a.cases != b.cases) return a.cases > b.cases;
    return a.text < b.text;
  });
}

// Where each section, package and cause already sits in the model, and what the
// page has seen so far, while the rows are added in page order.
struct PageIndexes {
  std::map<std::pair<std::string, std::string>, std::size_t> section;
  std::map<std::string, std::size_t> package;
  std::map<std::string, std::size_t> cause, graph_break, not_probed;
  std::set<std::string> probed_operators, operators, statuses;
};

// The header and case list of a document the page can show; UserError otherwise.
std::pair<const json*, const json*> header_and_cases(const json& snapshot) {
  if (!snapshot.is_object()) throw UserError("snapshot: should be a JSON object");
  auto header_it = snapshot.find("header");
  if (header_it == snapshot.end() || !header_it->is_object()) {
    throw UserError("snapshot: has no 'header' object");
  }
  auto cases_it = snapshot.find("cases");
  if (cases_it == snapshot.end() || !cases_it->is_array()) {
    throw UserError("snapshot: has no 'cases' list");
  }
  if (auto v = snapshot.find("schema_version"); v != snapshot.end() && *v != 1) {
    throw UserError("snapshot: schema_version " + v->dump() + " is not supported (expected 1)");
  }
  return {&*header_it, &*cases_it};
}

// The library's packages: every folder of a file some case ran.
std::set<std::string> library_packages(const json& cases) {
  std::set<std::string> packages;
  for (const json& c : cases) {
    auto files = c.is_object() ? c.find("files") : c.end();
    if (!c.is_object() || files == c.end() || !files->is_object()) continue;
    for (const auto& [file, hash] : files->items()) add_package_dirs(file, packages);
  }
  return packages;
}

// The library's import name: the first part of the refs ("kornia").
std::string library_root(const std::vector<CaseRow>& cases) {
  for (const CaseRow& row : cases) {
    if (row.public_name.module.empty()) continue;
    return row.public_name.module.substr(0, row.public_name.module.find('.'));
  }
  return {};
}

// Sections and packages read alphabetically whatever order the cases came in; inside a
// section, by operator (a method right after its class), then variant.
std::vector<std::size_t> page_order(const std::vector<CaseRow>& cases) {
  std::vector<std::size_t> order(cases.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::vector<std::string> sort_keys(cases.size());
  for (std::size_t i = 0; i < sort_keys.size(); ++i) sort_keys[i] = lower(cases[i].operator_name);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const CaseRow &x = cases[a], &y = cases[b];
    return std::tie(x.package, x.section, sort_keys[a], x.operator_name, x.variant, x.name) <
           std::tie(y.package, y.section, sort_keys[b], y.operator_name, y.variant, y.name);
  });
  return order;
}

// Each cause, graph break reason and reason not probed counts once per case.
void count_causes(PageModel& model, const CaseRow& row, PageIndexes& indexes) {
  std::set<std::string> counted, counted_breaks, counted_not_probed;
  const std::size_t paths = model.paths.size();
  for (const CauseLine& line : row.causes) {
    switch (line.kind) {
      case CauseKind::failure:
        count_cause(model.causes, indexes.cause, line, paths, counted);
        break;
      case CauseKind::graph_break:
        count_cause(model.break_reasons, indexes.graph_break, line, paths, counted_breaks);
        break;
      case CauseKind::not_probed:
        count_cause(model.not_probed, indexes.not_probed, line, paths, counted_not_probed);
        break;
      case CauseKind::note:
        break;
    }
  }
}

// Row `i` joins its section and package, and every tally of the page.
void add_to_page(PageModel& model, std::size_t i, PageIndexes& indexes) {
  const CaseRow& row = model.cases[i];
  auto [sec, new_section] =
      indexes.section.emplace(std::make_pair(row.package, row.section), model.sections.size());
  if (new_section) model.sections.push_back({row.package, row.section, {}});
  model.sections[sec->second].cases.push_back(i);

  auto [pkg, new_package] = indexes.package.emplace(row.package, model.packages.size());
  if (new_package) model.packages.push_back({row.package, 0, {}, 0, 0});
  PackageSummary& summary = model.packages[pkg->second];
  ++summary.cases;
  tally(model, row, summary.per_path);
  tally(model, row, model.cards);
  indexes.statuses.insert(row.statuses.begin(), row.statuses.end());
  indexes.operators.insert(row.operator_name);
  if (all_probed(row)) {
    ++summary.probed_all;
    ++model.totals.probed_all;
  }
  if (all_pass(row)) {
    ++summary.all_pass;
    ++model.all_pass;
  }
  if (std::any_of(row.statuses.begin(), row.statuses.end(),
                  [](const std::string& s) { return s != "n/a"; })) {
    indexes.probed_operators.insert(row.operator_name);
    ++model.totals.probed_any;
  }
  count_causes(model, row, indexes);
}

// The statuses the page shows, in the legend's order; one the legend does not
// know still gets its entry, after the known ones.
std::vector<std::string> statuses_seen(const std::set<std::string>& seen) {
  std::vector<std::string> out;
  for (const auto& [status, meaning] : status_legend()) {
    if (seen.count(status)) out.push_back(status);
  }
  for (const std::string& status : seen) {
    if (std::find(out.begin(), out.end(), status) == out.end()) out.push_back(status);
  }
  return out;
}

}  // namespace

bool is_pass_status(const std::string& s) {
  return s == "ok" || s == "ok-breaks" || s == "ok-unverified";
}

bool is_failure_status(const std::string& s) {
  return s == "fail" || s == "mismatch" || s == "specialized" || s == "crashed" || s == "timeout" ||
         s == "oom";
}

bool is_constant_status(const std::string& s) { return s == "constant"; }

std::string section_title(const CaseSection& section) {
  if (section.package.empty()) return "(no package)";
  return section.section.empty() ? section.package : section.package + "." + section.section;
}

std::string status_label(const std::string& s) {
  if (s == "ok-breaks") return "ok, breaks";
  if (s == "ok-unverified") return "ok, unverified";
  return s;
}

PageModel build_page_model(const json& snapshot, const UrlTemplates& urls) {
  const auto [header, cases] = header_and_cases(snapshot);
  PageModel model;
  model.urls = urls;
  model.header = read_header(*header);
  model.paths = read_paths(*header);
  model.cards.resize(model.paths.size());
  const std::set<std::string> packages = library_packages(*cases);
  for (std::size_t i = 0; i < cases->size(); ++i) {
    model.cases.push_back(
        read_case((*cases)[i], i, model.paths, model.header.revision, urls, packages));
  }
  model.library_root = library_root(model.cases);
  for (CaseRow& row : model.cases) row.section = public_section(row, model.library_root);
  PageIndexes indexes;
  for (std::size_t i : page_order(model.cases)) add_to_page(model, i, indexes);
  model.operators_probed = indexes.probed_operators.size();
  model.totals.cases = model.cases.size();
  model.totals.operators = indexes.operators.size();
  model.totals.operators_probed = indexes.probed_operators.size();
  model.totals.public_names = model.header.coverage_total;
  model.totals.public_names_covered = model.header.coverage_covered;
  model.statuses_seen = statuses_seen(indexes.statuses);
  sort_tallies(model.causes);
  sort_tallies(model.break_reasons);
  sort_tallies(model.not_probed);
  return model;
}

}  // namespace capmap

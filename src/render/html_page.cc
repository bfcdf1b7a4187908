#include "render/html_page.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "common/embedded_assets.h"
#include "common/user_error.h"
#include "render/html_escape.h"
#include "render/html_template.h"
#include "render/page_data.h"
#include "render/page_text.h"

namespace capmap {
namespace {

// Cause text with its `code` spans as <code>.
std::string cause_html(const std::string& text) {
  std::string out;
  for (const auto& [code, part] : code_spans(text)) {
    out += code ? "<code>" + escape_html(part) + "</code>" : escape_html(part);
  }
  return out;
}

std::string lead_text(const PageModel& model) {
  std::string paths;
  for (std::size_t i = 0; i < model.paths.size(); ++i) {
    if (i > 0) paths += i + 1 == model.paths.size() ? " and " : ", ";
    paths += model.paths[i].label;
  }
  std::string torch;
  for (const auto& [name, version] : model.header.versions) {
    if (name == "torch") torch = " with torch " + version;
  }
  return fmt::format(
      "Which public operators of {} capture on {}{}: search by name, filter by "
      "path, package or cause.",
      library_title(model.header), paths, torch);
}

std::string header_html(const PageModel& model) {
  std::string out = fmt::format(
      "<h1>{} <span class=\"cm-sub\">graph capture compatibility</span></h1>\n"
      "<p class=\"cm-lead\">{}</p>\n",
      escape_html(library_title(model.header)), escape_html(lead_text(model)));
  std::string warnings;
  std::string facts;
  for (const auto& [label, value] : header_facts(model.header)) {
    bool incomplete = label == "Completeness" && !model.header.complete;
    bool partial = label == "Selection" && model.header.selection_partial;
    if (incomplete || partial) {
      warnings +=
          fmt::format("<p class=\"cm-warn\">{}: {}</p>\n", escape_html(label), escape_html(value));
    }
    facts += fmt::format("<div><dt>{}</dt><dd{}>{}</dd></div>\n", escape_html(label),
                         incomplete || partial ? " class=\"cm-warn\"" : "", escape_html(value));
  }
  out += warnings;
  out += fmt::format(
      "<details class=\"cm-run\"><summary>Run details and method</summary>\n<p>{}</p>\n"
      "<dl class=\"cm-facts\">\n{}</dl>\n</details>\n",
      escape_html(method_text(model)), facts);
  return out;
}

std::string card_html(const std::string& title, std::size_t part, std::size_t whole,
                      const std::string& caption, const std::string& extra = "") {
  double width = whole == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole);
  return fmt::format(
      "<div class=\"cm-card\"><h3>{}</h3><p class=\"cm-big\">{} <span>/ {}</span></p>"
      "<div class=\"cm-bar\" aria-hidden=\"true\"><span style=\"width:{:.1f}%\"></span></div>"
      "<p>{} {}</p>{}</div>\n",
      escape_html(title), with_commas(part), with_commas(whole), width,
      escape_html(percent_text(part, whole)), escape_html(caption), extra);
}

std::string cards_html(const PageModel& model) {
  std::string out = "<div class=\"cm-cards\">\n";
  for (std::size_t i = 0; i < model.paths.size(); ++i) {
    const PathTally& t = model.cards[i];
    std::string extra = fmt::format("<p class=\"cm-parts\">{} failed", with_commas(t.failed));
    if (t.constant > 0) extra += fmt::format(" · <b>{} constant</b>", with_commas(t.constant));
    extra += "</p>";
    out += card_html(model.paths[i].label, t.supported, t.probed,
                     "of the cases probed on this path are supported", extra);
  }
  out += card_html(all_pass_title(model), model.all_pass, model.totals.probed_all,
                   "of the cases probed on every path pass every path");
  out += fmt::format(
      "<div class=\"cm-card\"><h3>Operators</h3><p class=\"cm-big\">{}</p>"
      "<p>distinct operators ({} probed) in {} cases, {} probed</p></div>\n",
      with_commas(model.totals.operators), with_commas(model.totals.operators_probed),
      with_commas(model.totals.cases), with_commas(model.totals.probed_any));
  out += "</div>\n<p class=\"cm-hint cm-totals\">" + escape_html(totals_text(model));
  if (std::any_of(model.cards.begin(), model.cards.end(),
                  [](const PathTally& t) { return t.constant > 0; })) {
    out += " A constant export counts as probed but neither supported nor failed.";
  }
  return out + "</p>\n";
}

std::string tally_cell(const PathTally& t) {
  return fmt::format("<td class=\"num\">{} / {} <small>{}</small></td>", t.supported, t.probed,
                     escape_html(percent_text(t.supported, t.probed)));
}

std::string summary_html(const PageModel& model) {
  // Narrow screens scroll this table sideways: the wrapper says so and is focusable.
  std::string out =
      "<div class=\"cm-scroll cm-wide\" tabindex=\"0\" role=\"region\" aria-label=\"By package "
      "(scrolls sideways)\"><table class=\"cm-summary\">\n<thead><tr><th "
      "scope=\"col\">Package</th>"
      "<th scope=\"col\" class=\"num\">Cases</th>";
  for (const PagePath& p : model.paths) {
    out += fmt::format("<th scope=\"col\" class=\"num\">{}</th>", escape_html(p.label));
  }
  out += "<th scope=\"col\" class=\"num\">All pass</th></tr></thead>\n<tbody>\n";
  for (const PackageSummary& pkg : model.packages) {
    std::string name = pkg.package.empty() ? "(no package)" : pkg.package;
    out += fmt::format(
        "<tr><th scope=\"row\"><button type=\"button\" class=\"cm-link\" data-package=\"{}\">{}"
        "</button></th><td class=\"num\">{}</td>",
        escape_html(pkg.package), escape_html(name), pkg.cases);
    for (const PathTally& t : pkg.per_path) out += tally_cell(t);
    out += fmt::format("<td class=\"num\">{} / {}</td></tr>\n", pkg.all_pass, pkg.probed_all);
  }
  out += "</tbody>\n<tfoot><tr><th scope=\"row\">All packages</th>";
  out += fmt::format("<td class=\"num\">{}</td>", model.cases.size());
  for (const PathTally& t : model.cards) out += tally_cell(t);
  out += fmt::format(
      "<td class=\"num\">{} / {}</td></tr></tfoot>\n</table></div>\n"
      "<p class=\"cm-scroll-cue\" aria-hidden=\"true\">Scroll the table sideways for every "
      "path →</p>\n",
      model.all_pass, model.totals.probed_all);
  return out;
}

// One entry of a path's list: a cause, or a group of causes ("Missing ONNX lowering").
struct PathCauseEntry {
  std::string title, category;  // category set for a group
  std::size_t count = 0;
  std::vector<std::pair<std::string, std::size_t>> members;  // cause text, count
  std::string text;                                          // a single cause's text
};

std::vector<PathCauseEntry> path_entries(const std::vector<CauseTally>& causes, std::size_t path) {
  std::vector<PathCauseEntry> entries;
  std::map<std::string, std::size_t> groups;
  for (const CauseTally& c : causes) {
    std::size_t n = c.per_path[path];
    if (n == 0) continue;
    std::string group = cause_group_title(c.category);
    if (group.empty()) {
      entries.push_back({c.text, "", n, {}, c.text});
      continue;
    }
    auto [it, fresh] = groups.emplace(group, entries.size());
    if (fresh) entries.push_back({group, c.category, 0, {}, ""});
    entries[it->second].count += n;
    entries[it->second].members.emplace_back(c.text, n);
  }
  for (PathCauseEntry& e : entries) {
    std::stable_sort(e.members.begin(), e.members.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
  }
  std::stable_sort(
      entries.begin(), entries.end(),
      [](const PathCauseEntry& a, const PathCauseEntry& b) { return a.count > b.count; });
  return entries;
}

std::string entry_html(const PathCauseEntry& e, const PagePath& path) {
  if (e.category.empty()) {
    return fmt::format(
        "<li><span class=\"num\">{}</span> <button type=\"button\" class=\"cm-link\" "
        "data-cause=\"{}\" data-path=\"{}\">{}</button></li>\n",
        e.count, escape_html(e.text), escape_html(path.id), cause_html(e.text));
  }
  std::string out = fmt::format(
      "<li class=\"cm-group\"><span class=\"num\">{}</span> <button type=\"button\" "
      "class=\"cm-link\" data-cat=\"{}\" data-path=\"{}\">{}</button>\n<ul>",
      e.count, escape_html(e.category), escape_html(path.id), escape_html(e.title));
  for (const auto& [text, n] : e.members) {
    out += fmt::format(
        "<li><span class=\"num\">{}</span> <button type=\"button\" class=\"cm-link\" "
        "data-cause=\"{}\" data-path=\"{}\">{}</button></li>",
        n, escape_html(text), escape_html(path.id), cause_html(cause_group_item(text)));
  }
  return out + "</ul></li>\n";
}

// The most frequent causes stay in view; the long tail folds away.
constexpr std::size_t kCausesInView = 6;

std::string causes_html(const PageModel& model) {
  std::string out;
  if (model.causes.empty()) {
    out += "<p>No failures.</p>\n";
  } else {
    out += "<div class=\"cm-path-causes\">\n";
    for (std::size_t p = 0; p < model.paths.size(); ++p) {
      const PagePath& path = model.paths[p];
      std::vector<PathCauseEntry> entries = path_entries(model.causes, p);
      out += fmt::format(
          "<section class=\"cm-path-cause\"><h3>{} <span class=\"n\">{} failed "
          "of {} probed</span></h3>\n",
          escape_html(path.label), model.cards[p].failed, model.cards[p].probed);
      if (entries.empty()) {
        out += "<p class=\"cm-hint\">No failures on this path.</p></section>\n";
        continue;
      }
      std::size_t shown = std::min(kCausesInView, entries.size());
      out += "<ul class=\"cm-cause-list\">\n";
      for (std::size_t i = 0; i < shown; ++i) out += entry_html(entries[i], path);
      out += "</ul>\n";
      if (shown < entries.size()) {
        out += fmt::format(
            "<details class=\"cm-more\"><summary>{} more causes on {}</summary>\n"
            "<ul class=\"cm-cause-list\">\n",
            entries.size() - shown, escape_html(path.label));
        for (std::size_t i = shown; i < entries.size(); ++i) out += entry_html(entries[i], path);
        out += "</ul></details>\n";
      }
      out += "</section>\n";
    }
    out += "</div>\n";
  }
  auto reason_list = [&](const std::vector<CauseTally>& tallies, const std::string& title,
                         const std::string& hint) {
    if (tallies.empty()) return std::string();
    std::string list = fmt::format(
        "<details class=\"cm-reasons\"><summary>{} ({})</summary>\n<p class=\"cm-hint\">{}</p>"
        "<ul class=\"cm-cause-list\">\n",
        escape_html(title), tallies.size(), escape_html(hint));
    for (const CauseTally& c : tallies) {
      list += fmt::format(
          "<li><span class=\"num\">{}</span> <button type=\"button\" class=\"cm-link\" "
          "data-cause=\"{}\">{}</button></li>\n",
          c.cases, escape_html(c.text), cause_html(c.text));
    }
    return list + "</ul></details>\n";
  };
  out += reason_list(model.break_reasons, "Graph-break reasons",
                     "These paths work: the compiled function splits its graph here. Counts are "
                     "cases.");
  out += reason_list(model.not_probed, "Why cases were not run",
                     "Not a failure: the case could not be probed (weights to download, no tensor "
                     "output, ...). Counts are cases.");
  return out;
}

std::string legend_html(const PageModel& model) {
  std::string out = "<dl class=\"cm-legend\">\n";
  for (const std::string& status : model.statuses_seen) {
    std::string meaning = "a status this page does not describe";
    for (const auto& [known, text] : status_legend()) {
      if (known == status) meaning = text;
    }
    out +=
        fmt::format("<div><dt><span class=\"badge {}\">{}</span></dt><dd>{}</dd></div>\n",
                    status_class(status), escape_html(status_label(status)), escape_html(meaning));
  }
  out += "</dl>\n";
  std::string measures;
  for (const PagePath& p : model.paths) {
    if (p.description.empty()) continue;
    measures += fmt::format("<div><dt>{}</dt><dd>{}</dd></div>\n", escape_html(p.label),
                            escape_html(p.description));
  }
  if (!measures.empty()) {
    out += "<h3>What each path measures</h3>\n<dl class=\"cm-legend cm-paths\">\n" + measures +
           "</dl>\n";
  }
  out +=
      "<p>Supported counts ok, ok with graph breaks and ok-unverified; n/a cases are not "
      "counted as probed. Causes are shown once for all the paths that failed with them, with the "
      "innermost library source line; graph-break reasons and reasons a case was not run are "
      "notes, not failures.</p>\n";
  return out;
}

}  // namespace

std::string status_class(const std::string& page_status) {
  if (page_status == "n/a" || page_status.empty()) return "st-na";
  std::string out = "st-";
  for (char c : page_status) {
    bool plain = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
    out += plain ? c : '-';
  }
  return out;
}

std::string render_html_page(const PageModel& model, const std::string& changes_section) {
  std::string title = library_title(model.header) + " — graph capture compatibility";
  return fill_template(required_asset("page.html"), {{"TITLE", escape_html(title)},
                                                     {"CSS", required_asset("page.css")},
                                                     {"HEADER", header_html(model)},
                                                     {"CARDS", cards_html(model)},
                                                     {"CHANGES", changes_section},
                                                     {"SUMMARY", summary_html(model)},
                                                     {"CAUSES", causes_html(model)},
                                                     {"LEGEND", legend_html(model)},
                                                     {"DATA", json_for_script(page_data(model))},
                                                     {"JS", required_asset("page.js")}});
}

}  // namespace capmap

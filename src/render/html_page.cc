#include "render/html_page.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "common/embedded_assets.h"
#include "common/user_error.h"
#include "render/html_escape.h"
#include "render/page_data.h"
#include "render/page_text.h"

namespace capmap {
namespace {

std::string header_html(const PageModel& model) {
  std::string out = fmt::format(
      "<h1>{} <span class=\"cm-sub\">graph capture compatibility</span></h1>\n<dl "
      "class=\"cm-facts\">\n",
      escape_html(library_title(model.header)));
  for (const auto& [label, value] : header_facts(model.header)) {
    bool incomplete = label == "Completeness" && !model.header.complete;
    bool partial = label == "Selection" && model.header.selection_partial;
    out += fmt::format("<div><dt>{}</dt><dd{}>{}</dd></div>\n", escape_html(label),
                       incomplete || partial ? " class=\"cm-warn\"" : "", escape_html(value));
  }
  return out + "</dl>\n";
}

std::string card_html(const std::string& title, std::size_t part, std::size_t whole,
                      const std::string& caption) {
  double width = whole == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole);
  return fmt::format(
      "<div class=\"cm-card\"><h3>{}</h3><p class=\"cm-big\">{} <span>/ {}</span></p>"
      "<div class=\"cm-bar\" aria-hidden=\"true\"><span style=\"width:{:.1f}%\"></span></div>"
      "<p>{} {}</p></div>\n",
      escape_html(title), part, whole, width, escape_html(percent_text(part, whole)),
      escape_html(caption));
}

std::string cards_html(const PageModel& model) {
  std::string out = "<div class=\"cm-cards\">\n";
  for (std::size_t i = 0; i < model.paths.size(); ++i) {
    out += card_html(model.paths[i].label, model.cards[i].supported, model.cards[i].probed,
                     "of probed cases supported");
  }
  out += card_html(all_pass_title(model), model.all_pass, model.cases.size(),
                   "of all cases pass every path");
  out += fmt::format(
      "<div class=\"cm-card\"><h3>Operators</h3><p class=\"cm-big\">{}</p>"
      "<p>distinct operators probed (variants count once) in {} cases</p></div>\n",
      model.operators_probed, model.cases.size());
  return out + "</div>\n";
}

std::string tally_cell(const PathTally& t) {
  return fmt::format("<td class=\"num\">{} / {} <small>{}</small></td>", t.supported, t.probed,
                     escape_html(percent_text(t.supported, t.probed)));
}

std::string summary_html(const PageModel& model) {
  std::string out =
      "<div class=\"cm-scroll\"><table class=\"cm-summary\">\n<thead><tr><th "
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
    out += fmt::format("<td class=\"num\">{} / {}</td></tr>\n", pkg.all_pass, pkg.cases);
  }
  out += "</tbody>\n<tfoot><tr><th scope=\"row\">All packages</th>";
  out += fmt::format("<td class=\"num\">{}</td>", model.cases.size());
  for (const PathTally& t : model.cards) out += tally_cell(t);
  out += fmt::format("<td class=\"num\">{} / {}</td></tr></tfoot>\n</table></div>\n",
                     model.all_pass, model.cases.size());
  return out;
}

std::string causes_table(const PageModel& model, std::size_t begin, std::size_t end) {
  std::string out =
      "<div class=\"cm-scroll\"><table class=\"cm-causes\">\n<thead><tr><th scope=\"col\" "
      "class=\"cause\">Cause</th><th scope=\"col\" class=\"cat\">Category</th>";
  for (const PagePath& p : model.paths) {
    out += fmt::format("<th scope=\"col\" class=\"num\">{}</th>", escape_html(p.label));
  }
  out += "<th scope=\"col\" class=\"num\">Cases</th></tr></thead>\n<tbody>\n";
  for (std::size_t i = begin; i < end; ++i) {
    const CauseTally& c = model.causes[i];
    out += fmt::format(
        "<tr><td><button type=\"button\" class=\"cm-link\" data-cause=\"{0}\">{0}</button></td>"
        "<td><span class=\"cm-cat\">{1}</span></td>",
        escape_html(c.text), escape_html(c.category));
    for (std::size_t n : c.per_path) out += fmt::format("<td class=\"num\">{}</td>", n);
    out += fmt::format("<td class=\"num\">{}</td></tr>\n", c.cases);
  }
  return out + "</tbody>\n</table></div>\n";
}

// The most frequent causes stay in view; the long tail folds away so the
// case search is not pushed far down the page.
constexpr std::size_t kCausesInView = 10;

std::string causes_html(const PageModel& model) {
  if (model.causes.empty()) return "<p>No failures.</p>\n";
  std::size_t shown = std::min(kCausesInView, model.causes.size());
  std::string out = causes_table(model, 0, shown);
  if (shown < model.causes.size()) {
    out += fmt::format("<details class=\"cm-more\"><summary>{} more causes</summary>\n",
                       model.causes.size() - shown);
    out += causes_table(model, shown, model.causes.size()) + "</details>\n";
  }
  return out;
}

std::string legend_html() {
  std::string out = "<dl class=\"cm-legend\">\n";
  for (const auto& [status, meaning] : status_legend()) {
    out +=
        fmt::format("<div><dt><span class=\"badge {}\">{}</span></dt><dd>{}</dd></div>\n",
                    status_class(status), escape_html(status_label(status)), escape_html(meaning));
  }
  out +=
      "</dl>\n<p>Supported counts ok, ok with graph breaks and ok-unverified; n/a cases are not "
      "counted as probed. Causes are shown once for all the paths that failed with them, with the "
      "innermost library source line.</p>\n";
  return out;
}

// Replaces @@NAME@@ markers in one pass, so inserted text is never scanned again.
std::string fill_template(const std::string& tmpl,
                          const std::map<std::string, std::string>& values) {
  std::string out;
  out.reserve(tmpl.size() + 1024);
  std::size_t pos = 0;
  while (true) {
    std::size_t start = tmpl.find("@@", pos);
    if (start == std::string::npos) break;
    std::size_t end = tmpl.find("@@", start + 2);
    if (end == std::string::npos) break;
    auto it = values.find(tmpl.substr(start + 2, end - start - 2));
    if (it == values.end()) {
      out.append(tmpl, pos, start + 2 - pos);
      pos = start + 2;
      continue;
    }
    out.append(tmpl, pos, start - pos);
    out += it->second;
    pos = end + 2;
  }
  out.append(tmpl, pos, std::string::npos);
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

std::string render_html_page(const PageModel& model) {
  std::string title = library_title(model.header) + " — graph capture compatibility";
  return fill_template(required_asset("page.html"), {{"TITLE", escape_html(title)},
                                                     {"CSS", required_asset("page.css")},
                                                     {"HEADER", header_html(model)},
                                                     {"CARDS", cards_html(model)},
                                                     {"SUMMARY", summary_html(model)},
                                                     {"CAUSES", causes_html(model)},
                                                     {"LEGEND", legend_html()},
                                                     {"DATA", json_for_script(page_data(model))},
                                                     {"JS", required_asset("page.js")}});
}

}  // namespace capmap

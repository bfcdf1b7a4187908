#include "render/rst_page.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>

#include "common/embedded_assets.h"
#include "render/html_escape.h"
#include "render/html_page.h"
#include "render/page_data.h"
#include "render/page_text.h"

namespace capmap {
namespace {

// URLs go between <...> in a hyperlink reference: spaces and delimiters are
// percent-encoded, the rest is kept.
std::string rst_url(std::string_view url) {
  std::string out;
  for (char c : url) {
    switch (c) {
      case ' ':
        out += "%20";
        break;
      case '<':
        out += "%3C";
        break;
      case '>':
        out += "%3E";
        break;
      case '`':
        out += "%60";
        break;
      case '\\':
        out += "%5C";
        break;
      case '\n':
      case '\r':
      case '\t':
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string link(std::string_view text, std::string_view url) {
  if (url.empty()) return escape_rst(text);
  return fmt::format("`{} <{}>`__", escape_rst(text), rst_url(url));
}

std::string heading(const std::string& title, char underline) {
  std::string text = escape_rst(title);
  // Byte length never undercounts the display width docutils checks.
  return text + "\n" + std::string(text.size() + 2, underline) + "\n\n";
}

std::string badge(const std::string& status) {
  return fmt::format(":{}:`{}`", status_class(status), escape_rst(status_label(status)));
}

// One list-table; each cell is already RST and holds no line break.
std::string list_table(const std::vector<std::string>& header,
                       const std::vector<std::vector<std::string>>& rows,
                       const std::string& css_class = "", const std::string& widths = "") {
  std::string out = ".. list-table::\n   :header-rows: 1\n";
  if (!css_class.empty()) out += "   :class: " + css_class + "\n";
  if (!widths.empty()) out += "   :widths: " + widths + "\n";
  out += "\n";
  auto emit = [&out](const std::vector<std::string>& cells) {
    for (std::size_t i = 0; i < cells.size(); ++i) {
      out += i == 0 ? "   * - " : "     - ";
      out += cells[i].empty() ? "\\ " : cells[i];
      out += "\n";
    }
  };
  emit(header);
  for (const auto& row : rows) emit(row);
  return out + "\n";
}

std::string tally_text(const PathTally& t) {
  return fmt::format("{} / {} ({})", t.supported, t.probed, percent_text(t.supported, t.probed));
}

bool plain_identifier(std::string_view s) {
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.') return false;
  }
  return !s.empty();
}

std::string operator_cell(const CaseRow& row, const RstOptions& options, RstPage& page) {
  const SphinxInventory* inventory = options.inventory;
  if (inventory == nullptr && !options.xref_role.empty() && plain_identifier(row.ref)) {
    return fmt::format(":{}:`{} <{}>`", options.xref_role, escape_rst(row.operator_name), row.ref);
  }
  if (inventory != nullptr) {
    const InventoryEntry* entry = row.ref.empty() ? nullptr : inventory->find(row.ref);
    if (entry == nullptr) {
      ++page.unresolved;
      return escape_rst(row.operator_name);
    }
    ++page.resolved;
    std::string role = cross_reference_role(*entry);
    if (plain_identifier(row.operator_name) && plain_identifier(row.ref)) {
      return fmt::format(":{}:`{} <{}>`", role, row.operator_name, row.ref);
    }
    return fmt::format(":{}:`~{}`", role, row.ref);
  }
  return link(row.operator_name, row.docs_url);
}

// Text whose `code` spans become inline literals.
std::string rst_text(const std::string& text) {
  std::string out;
  for (const auto& [code, part] : code_spans(text)) {
    if (!code) {
      out += escape_rst(part);
      continue;
    }
    // An inline literal must not start or end with a space, nor contain backslashes'
    // meaning; a literal that cannot be one stays escaped text.
    bool literal = !part.empty() && part.front() != ' ' && part.back() != ' ' &&
                   part.find("``") == std::string::npos && part.find('\n') == std::string::npos;
    // Inline markup needs a non-word character (or the start) before it and after it.
    if (literal) {
      if (!out.empty() && std::isalnum(static_cast<unsigned char>(out.back()))) out += "\\ ";
      out += "``" + part + "``\\ ";
    } else {
      out += escape_rst(part);
    }
  }
  return out;
}

std::string cause_text(const PageModel& model, const CauseLine& cause) {
  std::string who = cause_paths_text(model, cause);
  if (cause.kind == CauseKind::graph_break) who += " (graph break)";
  std::string out = "**" + escape_rst(who) + "**: " + rst_text(cause.text);
  if (!cause.location.empty()) out += " (" + link(cause.location, cause.location_url) + ")";
  return out;
}

// The causes of a case, one per line (a line block keeps them apart in a cell).
std::string causes_cell(const PageModel& model, const CaseRow& row) {
  if (row.causes.empty()) return {};
  if (row.causes.size() == 1) return cause_text(model, row.causes[0]);
  std::string out;
  for (std::size_t i = 0; i < row.causes.size(); ++i) {
    if (i > 0) out += "\n       ";
    out += "| " + cause_text(model, row.causes[i]);
  }
  return out;
}

std::string indented(const std::string& text, const std::string& prefix) {
  std::string out;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    if (end > start) out += prefix;
    out.append(text, start, end - start);
    out += '\n';
    start = end + 1;
  }
  return out;
}

// JSON broken into lines after commas between values: docutils refuses a line over 10,000
// characters, and a survey's page data is one line of megabytes.
std::string json_lines(const std::string& json) {
  constexpr std::size_t kWidth = 1000;
  std::string out;
  out.reserve(json.size() + json.size() / kWidth + 1);
  bool in_string = false, escaped = false;
  std::size_t line = 0;
  for (char c : json) {
    out += c;
    ++line;
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == ',' && line >= kWidth) {
      out += '\n';
      line = 0;
    }
  }
  return out;
}

}  // namespace

std::string escape_rst(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 8);
  bool first = true;
  for (char c : text) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
    if (static_cast<unsigned char>(c) < 0x20) continue;
    bool markup =
        std::string_view("\\`*_|:<>[]{}#+-=.!'\"()~^$%&,;?@/").find(c) != std::string_view::npos;
    // A leading digit or marker could start an enumerated or bullet list.
    if (markup || (first && std::isdigit(static_cast<unsigned char>(c)))) out += '\\';
    out += c;
    first = false;
  }
  return out;
}

namespace {

// The badge roles, the title, any warning, the run details folded, and the explorer.
void add_head(const PageModel& model, std::string& out) {
  out += ".. Generated by capmap render from a snapshot; regenerate rather than edit.\n\n";
  std::vector<std::string> roles;
  for (const auto& [status, meaning] : status_legend()) roles.push_back(status);
  for (const std::string& status : model.statuses_seen) {
    if (std::find(roles.begin(), roles.end(), status) == roles.end()) roles.push_back(status);
  }
  for (const std::string& status : roles) {
    out += fmt::format(".. role:: {0}\n   :class: badge {0}\n\n", status_class(status));
  }
  bool figures = std::any_of(model.cases.begin(), model.cases.end(), [](const CaseRow& row) {
    return std::any_of(row.figures.begin(), row.figures.end(),
                       [](const std::string& f) { return !f.empty(); });
  });
  if (figures) out += ".. role:: cm-figure\n   :class: cm-figure\n\n";
  out += heading(library_title(model.header) + " — graph capture compatibility", '=');
  for (const auto& [label, value] : header_facts(model.header)) {
    bool warn = (label == "Completeness" && !model.header.complete) ||
                (label == "Selection" && model.header.selection_partial);
    if (warn) out += fmt::format("**{}: {}**\n\n", escape_rst(label), escape_rst(value));
  }
  out +=
      ".. raw:: html\n\n   <details class=\"cm-run\"><summary>Run details and method</summary>\n\n";
  out += escape_rst(method_text(model)) + "\n\n";
  for (const auto& [label, value] : header_facts(model.header)) {
    out += fmt::format(":{}: {}\n", escape_rst(label), escape_rst(value));
  }
  out += "\n.. raw:: html\n\n   </details>\n\n";
  // The search and filters come first and stay in view (a child of the page's
  // top section, so it sticks for the whole page); they filter the tables below.
  std::string explorer = "<style>\n" + required_asset("page.css") +
                         "</style>\n<div id=\"cm-controls\" class=\"cm-toolbar\" role=\"search\" "
                         "aria-label=\"Search and filter the cases\"></div>\n"
                         "<script type=\"application/json\" id=\"capmap-data\">" +
                         json_lines(json_for_script(page_data(model))) + "</script>\n<script>\n" +
                         required_asset("page.js") + "</script>\n";
  out += ".. raw:: html\n\n" + indented(explorer, "   ") + "\n";
}

void add_glance(const PageModel& model, std::string& out) {
  out += heading("At a glance", '-');
  std::vector<std::vector<std::string>> card_rows;
  for (std::size_t i = 0; i < model.paths.size(); ++i) {
    card_rows.push_back(
        {escape_rst(model.paths[i].label), std::to_string(model.cards[i].supported),
         std::to_string(model.cards[i].probed),
         escape_rst(percent_text(model.cards[i].supported, model.cards[i].probed))});
  }
  // Constant exports get their own column when there are any: probed, neither supported nor failed.
  bool constants = std::any_of(model.cards.begin(), model.cards.end(),
                               [](const PathTally& t) { return t.constant > 0; });
  for (std::size_t i = 0; i < model.paths.size(); ++i) {
    card_rows[i].push_back(std::to_string(model.cards[i].failed));
    if (constants) card_rows[i].push_back(std::to_string(model.cards[i].constant));
  }
  card_rows.push_back({escape_rst(all_pass_title(model)), std::to_string(model.all_pass),
                       std::to_string(model.totals.probed_all),
                       escape_rst(percent_text(model.all_pass, model.totals.probed_all)), ""});
  if (constants) card_rows.back().push_back("");
  std::vector<std::string> card_header = {"Path", "Supported", "Probed", "Percent", "Failed"};
  if (constants) card_header.push_back("Constant");
  out += list_table(card_header, card_rows, "cm-wide");
  out += escape_rst(totals_text(model)) + "\n\n";
}

// The standalone page's Changes section under an RST heading (its lists link to the cases
// through the explorer's search).
void add_changes(const PageChanges& changes, std::string& out) {
  std::string body = changes_html_body(changes);
  if (body.empty()) return;
  out += heading("Changes", '-');
  out += ".. raw:: html\n\n" +
         indented("<div class=\"cm-embed cm-changes\">\n" + body + "</div>", "   ") + "\n";
}

void add_packages(const PageModel& model, std::string& out) {
  out += heading("By package", '-');
  std::vector<std::string> pkg_header = {"Package", "Cases"};
  for (const PagePath& p : model.paths) pkg_header.push_back(escape_rst(p.label));
  pkg_header.push_back("All pass");
  std::vector<std::vector<std::string>> pkg_rows;
  for (const PackageSummary& pkg : model.packages) {
    std::vector<std::string> row = {escape_rst(pkg.package.empty() ? "(no package)" : pkg.package),
                                    std::to_string(pkg.cases)};
    for (const PathTally& t : pkg.per_path) row.push_back(escape_rst(tally_text(t)));
    row.push_back(fmt::format("{} / {}", pkg.all_pass, pkg.probed_all));
    pkg_rows.push_back(std::move(row));
  }
  out += list_table(pkg_header, pkg_rows, "cm-wide");
  out += ".. rst-class:: cm-scroll-cue\n\nScroll the table sideways for every path →\n\n";
}

// The causes of one path, most cases first; grouped causes list their subjects.
void add_path_causes(const PageModel& model, std::size_t p, std::string& out) {
  std::vector<std::pair<std::string, std::size_t>> rows;
  std::map<std::string, std::size_t> groups;
  for (const CauseTally& c : model.causes) {
    std::size_t n = c.per_path[p];
    if (n == 0) continue;
    std::string group = cause_group_title(c.category);
    if (group.empty()) {
      rows.emplace_back(rst_text(c.text), n);
      continue;
    }
    auto [it, fresh] = groups.emplace(group, rows.size());
    if (fresh) rows.emplace_back(escape_rst(group) + ":", 0);
    rows[it->second].second += n;
    // Appended piece by piece: " " + string makes GCC 12 warn falsely at -O2 (-Wrestrict).
    std::string& line = rows[it->second].first;
    line += ' ';
    line += rst_text(cause_group_item(c.text));
    line += ' ';
    line += std::to_string(n);
    line += ';';
  }
  if (rows.empty()) return;
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  out += fmt::format("**{}** ({} failed of {} probed)\n\n", escape_rst(model.paths[p].label),
                     model.cards[p].failed, model.cards[p].probed);
  std::vector<std::vector<std::string>> table;
  for (auto& [text, n] : rows) {
    if (!text.empty() && text.back() == ';') text.pop_back();
    table.push_back({text, std::to_string(n)});
  }
  out += list_table({"Cause", "Cases"}, table, "cm-causes", "85 15");
}

void add_reasons(const std::vector<CauseTally>& tallies, const std::string& title,
                 const std::string& hint, std::string& out) {
  if (tallies.empty()) return;
  out += heading(title, '~') + escape_rst(hint) + "\n\n";
  std::vector<std::vector<std::string>> table;
  for (const CauseTally& c : tallies) table.push_back({rst_text(c.text), std::to_string(c.cases)});
  out += list_table({"Reason", "Cases"}, table, "cm-causes", "85 15");
}

void add_causes_and_legend(const PageModel& model, std::string& out) {
  out += heading("Top causes of failure", '-');
  if (model.causes.empty()) {
    out += "No failures.\n\n";
  } else {
    for (std::size_t p = 0; p < model.paths.size(); ++p) add_path_causes(model, p, out);
  }
  add_reasons(model.break_reasons, "Graph-break reasons",
              "These paths work: the compiled function splits its graph here.", out);
  add_reasons(model.not_probed, "Why cases were not run",
              "Not a failure: the case could not be probed.", out);

  out += heading("Legend", '-');
  for (const std::string& status : model.statuses_seen) {
    std::string meaning = "a status this page does not describe";
    for (const auto& [known, text] : status_legend()) {
      if (known == status) meaning = text;
    }
    out += badge(status) + "\n   " + escape_rst(meaning) + "\n\n";
  }
}

// One table per section of cases; the explorer filters them and its data follows their order.
void add_cases(const PageModel& model, const RstOptions& options, RstPage& page) {
  std::string& out = page.text;
  out += heading("Cases", '-');
  out +=
      ".. raw:: html\n\n   <div class=\"cm-embed\" id=\"cm-cases\"><div id=\"capmap-app\" "
      "data-mode=\"adopt\"></div></div>\n\n";

  std::vector<std::string> case_header = {"Operator", "Variant"};
  for (const PagePath& p : model.paths) case_header.push_back(escape_rst(p.label));
  case_header.push_back("Graph breaks");
  case_header.push_back("Causes");
  // Same relative widths in every section table, most room for the causes.
  std::string widths = "20 10";
  for (std::size_t i = 0; i < model.paths.size(); ++i) widths += " 9";
  widths +=
      " 7 " + std::to_string(std::max<int>(10, 63 - 9 * static_cast<int>(model.paths.size())));
  for (const CaseSection& section : model.sections) {
    out += heading(section_title(section), '~');
    std::vector<std::vector<std::string>> rows;
    for (std::size_t index : section.cases) {
      const CaseRow& row = model.cases[index];
      std::vector<std::string> cells = {operator_cell(row, options, page), escape_rst(row.variant)};
      for (std::size_t pi = 0; pi < row.statuses.size(); ++pi) {
        std::string cell = badge(row.statuses[pi]);
        if (pi < row.figures.size() && !row.figures[pi].empty()) {
          cell += " :cm-figure:`" + escape_rst(row.figures[pi]) + "`";
        }
        cells.push_back(std::move(cell));
      }
      cells.push_back(row.graph_breaks ? std::to_string(*row.graph_breaks) : std::string());
      cells.push_back(causes_cell(model, row));
      rows.push_back(std::move(cells));
    }
    out += list_table(case_header, rows, "capmap-cases", widths);
  }
}

}  // namespace

RstPage render_rst_page(const PageModel& model, const RstOptions& options) {
  RstPage page;
  add_head(model, page.text);
  add_glance(model, page.text);
  if (options.changes) add_changes(*options.changes, page.text);
  add_packages(model, page.text);
  add_causes_and_legend(model, page.text);
  add_cases(model, options, page);
  return page;
}

}  // namespace capmap

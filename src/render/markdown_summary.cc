#include "render/markdown_summary.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/markup_entity.h"
#include "render/page_text.h"

namespace capmap {
namespace {

std::string table_row(const std::vector<std::string>& cells) {
  std::string out = "|";
  for (const std::string& c : cells) out += " " + c + " |";
  return out + "\n";
}

std::string table_rule(std::size_t columns, std::size_t text_columns) {
  std::string out = "|";
  for (std::size_t i = 0; i < columns; ++i) out += i < text_columns ? " --- |" : " ---: |";
  return out + "\n";
}

// Text whose `code` spans stay Markdown code spans; the rest is escaped.
std::string markdown_text(const std::string& text) {
  std::string out;
  for (const auto& [code, part] : code_spans(text)) {
    bool plain_code = code && part.find('|') == std::string::npos;
    out += plain_code ? "`" + part + "`" : escape_markdown(part);
  }
  return out;
}

std::string tally_text(const PathTally& t) {
  return fmt::format("{} / {} ({})", t.supported, t.probed, percent_text(t.supported, t.probed));
}

}  // namespace

std::string escape_markdown(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 8);
  for (char c : text) {
    switch (c) {
      case '\n':
      case '\r':
      case '\t':
        out += ' ';
        break;
      case '<':
      case '>':
      case '&':
        append_entity(out, c);
        break;
      case '|':
      case '\\':
      case '`':
      case '*':
      case '_':
      case '[':
      case ']':
      case '#':
      case '~':
      case '!':
        out += '\\';
        out += c;
        break;
      default:
        if (static_cast<unsigned char>(c) >= 0x20) out += c;
    }
  }
  return out;
}

std::string render_markdown_summary(const PageModel& model, std::size_t max_causes,
                                    const std::string& changes) {
  std::string out = fmt::format("## {} — graph capture compatibility\n\n",
                                escape_markdown(library_title(model.header)));
  std::string facts;
  for (const auto& [label, value] : header_facts(model.header)) {
    if (label == "Run key" || label == "CPU") continue;
    if (!facts.empty()) facts += " · ";
    facts += escape_markdown(label) + " " + escape_markdown(value);
  }
  out += facts + "\n\n";

  std::vector<std::string> head = {"Path", "Supported / probed"};
  out += table_row(head) + table_rule(2, 1);
  for (std::size_t i = 0; i < model.paths.size(); ++i) {
    out += table_row({escape_markdown(model.paths[i].label), tally_text(model.cards[i])});
  }
  for (std::size_t i = 0; i < model.paths.size(); ++i) {
    if (model.cards[i].constant == 0) continue;
    out += table_row({escape_markdown(model.paths[i].label) + ", constant",
                      std::to_string(model.cards[i].constant) + " (neither supported nor failed)"});
  }
  PathTally all{model.all_pass, model.totals.probed_all, 0, 0};
  out += table_row({escape_markdown(all_pass_title(model)), tally_text(all)});
  // Appended piece by piece: "\n" + string makes GCC 12 warn falsely at -O2 (-Wrestrict).
  out += '\n';
  out += escape_markdown(totals_text(model));
  out += "\n\n";
  if (!changes.empty()) out += changes + "\n";

  out += "### By package\n\n";
  std::vector<std::string> pkg_head = {"Package", "Cases"};
  for (const PagePath& p : model.paths) pkg_head.push_back(escape_markdown(p.label));
  pkg_head.push_back("All pass");
  out += table_row(pkg_head) + table_rule(pkg_head.size(), 1);
  for (const PackageSummary& pkg : model.packages) {
    std::vector<std::string> row = {
        escape_markdown(pkg.package.empty() ? "(no package)" : pkg.package),
        std::to_string(pkg.cases)};
    for (const PathTally& t : pkg.per_path) row.push_back(tally_text(t));
    row.push_back(fmt::format("{} / {}", pkg.all_pass, pkg.probed_all));
    out += table_row(row);
  }

  out += "\n### Top causes of failure\n\n";
  if (model.causes.empty()) return out + "No failures.\n";
  std::vector<std::string> cause_head = {"Cause", "Category"};
  for (const PagePath& p : model.paths) cause_head.push_back(escape_markdown(p.short_label));
  cause_head.push_back("Cases");
  auto cause_rows = [&](std::size_t begin, std::size_t end) {
    std::string rows = table_row(cause_head) + table_rule(cause_head.size(), 2);
    for (std::size_t i = begin; i < end; ++i) {
      const CauseTally& c = model.causes[i];
      std::vector<std::string> row = {markdown_text(c.text), escape_markdown(c.category)};
      for (std::size_t n : c.per_path) row.push_back(std::to_string(n));
      row.push_back(std::to_string(c.cases));
      rows += table_row(row);
    }
    return rows;
  };
  std::size_t shown = std::min(max_causes, model.causes.size());
  out += cause_rows(0, shown);
  // The rest folds away (GitHub renders <details>), so nothing is cut off.
  if (shown < model.causes.size()) {
    out += fmt::format("\n<details><summary>{} more causes</summary>\n\n",
                       model.causes.size() - shown);
    out += cause_rows(shown, model.causes.size()) + "\n</details>\n";
  }

  out += "\n### Failing operators\n\n";
  for (std::size_t p = 0; p < model.paths.size(); ++p) {
    std::vector<std::string> names;
    for (const CaseRow& row : model.cases) {
      if (!is_failure_status(row.statuses[p])) continue;
      const std::string& name =
          row.public_name.qualified.empty() ? row.operator_name : row.public_name.qualified;
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    }
    std::sort(names.begin(), names.end());
    out += fmt::format("<details><summary>{}: {} operators fail</summary>\n\n",
                       escape_markdown(model.paths[p].label), names.size());
    std::string list;
    for (const std::string& name : names) {
      if (!list.empty()) list += ", ";
      list += name.find('`') == std::string::npos ? "`" + name + "`" : escape_markdown(name);
    }
    out += (list.empty() ? std::string("none") : list) + "\n\n</details>\n";
  }
  return out;
}

}  // namespace capmap

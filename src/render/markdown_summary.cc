#include "render/markdown_summary.h"

#include <fmt/format.h>

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
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
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

std::string render_markdown_summary(const PageModel& model, std::size_t max_causes) {
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
  out += table_row(
      {escape_markdown(all_pass_title(model)), tally_text({model.all_pass, model.cases.size()})});
  out += fmt::format("\n{} distinct operators probed in {} cases.\n\n", model.operators_probed,
                     model.cases.size());

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
    row.push_back(fmt::format("{} / {}", pkg.all_pass, pkg.cases));
    out += table_row(row);
  }

  out += "\n### Top causes\n\n";
  if (model.causes.empty()) return out + "No failures.\n";
  std::vector<std::string> cause_head = {"Cause", "Category"};
  for (const PagePath& p : model.paths) cause_head.push_back(escape_markdown(p.short_label));
  cause_head.push_back("Cases");
  out += table_row(cause_head) + table_rule(cause_head.size(), 2);
  std::size_t shown = std::min(max_causes, model.causes.size());
  for (std::size_t i = 0; i < shown; ++i) {
    const CauseTally& c = model.causes[i];
    std::vector<std::string> row = {escape_markdown(c.text), escape_markdown(c.category)};
    for (std::size_t n : c.per_path) row.push_back(std::to_string(n));
    row.push_back(std::to_string(c.cases));
    out += table_row(row);
  }
  if (shown < model.causes.size()) {
    out += fmt::format("\n…and {} more causes.\n", model.causes.size() - shown);
  }
  return out;
}

}  // namespace capmap

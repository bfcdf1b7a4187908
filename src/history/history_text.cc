// The Markdown and reStructuredText forms of the version matrix: the same
// columns, the steps between versions, then every operator × path row.
#include <fmt/format.h>

#include <algorithm>

#include "history/history_pages.h"
#include "render/rst_page.h"

namespace capmap {
namespace {

std::string cell_text(const std::optional<VersionCell>& cell) { return cell ? cell->status : "—"; }

// Markdown table cells: a pipe would end the cell.
std::string md(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n')
      out += ' ';
    else
      out += c;
  }
  return out;
}

std::string column_heading(const VersionColumn& column) {
  return column.sample ? column.label + " (sample)" : column.label;
}

std::string column_line(const VersionColumn& column) {
  std::string coverage = column.sample ? fmt::format("a sample: {} of {} cases (see its README)",
                                                     column.cases, column.registry_cases)
                                       : fmt::format("{} cases", column.cases);
  return fmt::format("{}: {}; {} ({})", column_heading(column), column.environment, coverage,
                     column.file);
}

// An operator's name as an inline literal, or escaped text when no literal can hold it.
std::string rst_name(const std::string& name) {
  bool literal = !name.empty() && name.front() != ' ' && name.back() != ' ' &&
                 name.find('`') == std::string::npos && name.find('\\') == std::string::npos &&
                 name.find('\n') == std::string::npos;
  return literal ? "``" + name + "``" : escape_rst(name);
}

std::string rst_heading(const std::string& text, char underline) {
  std::string escaped = escape_rst(text);
  // Byte length never undercounts the display width docutils checks.
  return escaped + "\n" + std::string(escaped.size() + 2, underline) + "\n\n";
}

}  // namespace

std::string describe_step(const VersionStep& step) {
  std::string text = fmt::format(
      "torch {} → {}: {} operator × path cells in both, {} changed ({} regressions, {} fixed)",
      step.from, step.to, step.compared, step.changed, step.regressions, step.fixes);
  if (!step.top_causes.empty()) {
    text += "; top causes: ";
    for (std::size_t i = 0; i < step.top_causes.size(); ++i) {
      text += fmt::format("{}{} ({})", i ? "; " : "", step.top_causes[i].first,
                          step.top_causes[i].second);
    }
  }
  return text;
}

std::string history_markdown(const VersionMatrix& matrix, const std::string& title) {
  std::string out = fmt::format("# {}\n\n## Environments\n\n", title);
  for (const auto& column : matrix.columns) out += fmt::format("- {}\n", md(column_line(column)));
  if (matrix.reference_pairs > 0) {
    out += fmt::format(
        "\nKornia's file is shown beside the capmap column of its torch: {} of its cases pair "
        "with a capmap case, {} do not. It is not part of the version axis.\n",
        matrix.reference_pairs, matrix.reference_unpaired);
  }
  out += "\n## What changed between versions\n\n";
  for (const auto& step : matrix.steps) out += fmt::format("- {}\n", md(describe_step(step)));
  out +=
      "\n## Operators by version\n\nRegressions between consecutive versions first; — means "
      "not surveyed under that version.\n\n| Operator | Path |";
  for (const auto& column : matrix.columns) out += fmt::format(" {} |", md(column_heading(column)));
  out += " Where it works |\n|---|---|";
  for (std::size_t i = 0; i < matrix.columns.size(); ++i) out += "---|";
  out += "---|\n";
  for (const auto& row : matrix.rows) {
    out += fmt::format("| {} | {} |", md(row.name), row.path);
    for (const auto& cell : row.cells) out += fmt::format(" {} |", cell_text(cell));
    out += fmt::format(" {} |\n", md(row.summary));
  }
  return out;
}

// Every text from the snapshots is escaped: it reads literally, never as markup.
std::string history_rst(const VersionMatrix& matrix, const std::string& title) {
  std::string out = rst_heading(title, '=') + rst_heading("Environments", '-');
  for (const auto& column : matrix.columns) {
    out += fmt::format("- {}\n", escape_rst(column_line(column)));
  }
  out += "\n" + rst_heading("What changed between versions", '-');
  for (const auto& step : matrix.steps)
    out += fmt::format("- {}\n", escape_rst(describe_step(step)));
  out += "\n" + rst_heading("Operators by version", '-');
  out += ".. list-table::\n   :header-rows: 1\n\n   * - Operator\n     - Path\n";
  for (const auto& column : matrix.columns) {
    out += fmt::format("     - {}\n", escape_rst(column_heading(column)));
  }
  out += "     - Where it works\n";
  for (const auto& row : matrix.rows) {
    out += fmt::format("   * - {}\n     - {}\n", rst_name(row.name), escape_rst(row.path));
    for (const auto& cell : row.cells)
      out += fmt::format("     - {}\n", escape_rst(cell_text(cell)));
    out += fmt::format("     - {}\n", escape_rst(row.summary));
  }
  return out;
}

}  // namespace capmap

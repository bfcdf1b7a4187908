// The version matrix as one self-contained HTML page: the rows travel as JSON
// and the page's script searches and filters them (src/render/assets/history.*).
#include <fmt/format.h>

#include <set>

#include "common/embedded_assets.h"
#include "history/history_pages.h"
#include "render/html_escape.h"
#include "render/html_template.h"

namespace capmap {

std::string history_html(const VersionMatrix& matrix, const std::string& title) {
  nlohmann::json columns = nlohmann::json::array();
  std::string header = fmt::format("<h1>{}</h1>\n<ul class=\"cm-env\">\n", escape_html(title));
  for (const auto& column : matrix.columns) {
    columns.push_back({{"label", column.label},
                       {"environment", column.environment},
                       {"reference", column.reference},
                       {"sample", column.sample},
                       {"cases", column.cases}});
    header += fmt::format("<li><strong>{}</strong>: {}; {}</li>\n", escape_html(column.label),
                          escape_html(column.environment),
                          column.sample ? fmt::format("a sample of {} of {} cases (see its README)",
                                                      column.cases, column.registry_cases)
                                        : fmt::format("{} cases", column.cases));
  }
  header += "</ul>\n";
  std::string steps = "<ul>\n";
  for (const auto& step : matrix.steps) {
    steps += fmt::format("<li>{}</li>\n", escape_html(describe_step(step)));
  }
  steps += "</ul>\n";
  nlohmann::json rows = nlohmann::json::array();
  std::set<std::string> groups;
  for (const auto& row : matrix.rows) {
    nlohmann::json statuses = nlohmann::json::array(), causes = nlohmann::json::array();
    for (const auto& cell : row.cells) {
      statuses.push_back(cell ? nlohmann::json(cell->status) : nlohmann::json());
      causes.push_back(cell ? cell->cause : "");
    }
    rows.push_back({row.name, row.public_name, row.operator_name, row.group, row.path,
                    change_kind_name(row.kind), row.summary, statuses, causes});
    if (!row.group.empty()) groups.insert(row.group);
  }
  nlohmann::json data = {
      {"columns", columns}, {"paths", matrix.paths}, {"groups", groups}, {"rows", rows}};
  std::string noscript = fmt::format(
      "<p>The table needs JavaScript; history.md beside this page holds the same {} rows.</p>",
      matrix.rows.size());
  return fill_template(required_asset("history.html"), {{"TITLE", escape_html(title)},
                                                        {"CSS", required_asset("history.css")},
                                                        {"HEADER", header},
                                                        {"STEPS", steps},
                                                        {"NOSCRIPT", noscript},
                                                        {"DATA", json_for_script(data)},
                                                        {"JS", required_asset("history.js")}});
}

}  // namespace capmap

#include "diff/diff_report.h"

#include <fmt/format.h>

#include <array>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace capmap {
namespace {

struct Section {
  ChangeKind kind;
  const char* title;
  const char* json_key;
};

// Lists longer than these fold into <details>; no list shows more than kMaxRowsPerList rows.
constexpr std::size_t kOpenRows = 10;
constexpr std::size_t kOpenRowsImportant = 25;
constexpr std::size_t kMaxRowsPerList = 200;

constexpr std::array<Section, 9> kSections{{
    {ChangeKind::kRegression, "Regressions", "regressions"},
    {ChangeKind::kFix, "Fixes", "fixes"},
    {ChangeKind::kCauseChanged, "Changed causes", "cause_changes"},
    {ChangeKind::kBreaksChanged, "Graph-break changes", "graph_break_changes"},
    {ChangeKind::kStatusChanged, "Status changes", "status_changes"},
    {ChangeKind::kNewCase, "New cases", "new_cases"},
    {ChangeKind::kRemovedCase, "Removed cases", "removed_cases"},
    {ChangeKind::kOutsideNewSelection, "Only in the old side (outside the new selection)",
     "outside_new_selection"},
    {ChangeKind::kOutsideOldSelection, "Only in the new side (outside the old selection)",
     "outside_old_selection"},
}};

std::string breaks_text(const std::optional<long long>& breaks) {
  return breaks ? fmt::format("{}", *breaks) : std::string("-");
}

std::string status_with_cause(const std::string& status, const std::string& cause) {
  return cause.empty() ? status : fmt::format("{} ({})", status, cause);
}

// One line describing a path change, without the case and path names.
std::string describe(const PathChange& c) {
  switch (c.kind) {
    case ChangeKind::kRegression:
    case ChangeKind::kFix:
    case ChangeKind::kStatusChanged:
      return fmt::format("{} → {}", c.old_status, status_with_cause(c.new_status, c.new_cause));
    case ChangeKind::kCauseChanged:
      return fmt::format("{} → {}", status_with_cause(c.old_status, c.old_cause),
                         status_with_cause(c.new_status, c.new_cause));
    case ChangeKind::kBreaksChanged:
      return fmt::format("graph breaks {} → {}", breaks_text(c.old_breaks),
                         breaks_text(c.new_breaks));
    case ChangeKind::kNewCase:
    case ChangeKind::kRemovedCase:
    case ChangeKind::kOutsideNewSelection:
    case ChangeKind::kOutsideOldSelection:
      break;
  }
  return "";
}

std::string summary(const SnapshotDiff& diff) {
  std::vector<std::string> parts;
  for (const auto& section : kSections) {
    std::size_t n = diff.count(section.kind);
    if (n) parts.push_back(fmt::format("{} {}", n, section.json_key));
  }
  if (parts.empty()) return "no changes";
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i) out += ", ";
    out += parts[i];
  }
  for (char& ch : out) {
    if (ch == '_') ch = ' ';
  }
  return out;
}

// Regressions and fixes of each path, paths by name: which capture path a change moved.
std::map<std::string, std::pair<std::size_t, std::size_t>> per_path(const SnapshotDiff& diff) {
  std::map<std::string, std::pair<std::size_t, std::size_t>> counts;
  for (const auto& c : diff.changes) {
    if (c.kind == ChangeKind::kRegression) ++counts[c.path].first;
    if (c.kind == ChangeKind::kFix) ++counts[c.path].second;
  }
  return counts;
}

// "By path: export-dynamic 1 regression; onnx 2 fixes", or empty when neither happened.
std::string by_path_line(const SnapshotDiff& diff) {
  std::string out;
  for (const auto& [path, n] : per_path(diff)) {
    std::vector<std::string> parts;
    if (n.first) parts.push_back(fmt::format("{} regression{}", n.first, n.first == 1 ? "" : "s"));
    if (n.second) parts.push_back(fmt::format("{} fix{}", n.second, n.second == 1 ? "" : "es"));
    out += fmt::format("{}{} {}", out.empty() ? "By path: " : "; ", path,
                       parts.size() == 2 ? parts[0] + ", " + parts[1] : parts[0]);
  }
  return out;
}

// Pipes would end a Markdown table cell; newlines would end the row.
std::string cell(std::string text) {
  std::string out;
  for (char ch : text) {
    if (ch == '|') {
      out += "\\|";
    } else if (ch == '\n') {
      out += ' ';
    } else {
      out += ch;
    }
  }
  return out;
}

// A long list folds into <details> so that a pull request comment stays short;
// regressions stay open unless there are very many.
std::string collapsible(const std::string& title, std::size_t rows, const std::string& table,
                        bool important) {
  std::size_t limit = important ? kOpenRowsImportant : kOpenRows;
  if (rows <= limit) return fmt::format("**{}**\n\n{}", title, table);
  return fmt::format("<details><summary><b>{}</b></summary>\n\n{}\n</details>\n", title, table);
}

std::string plural(std::size_t n, const char* one, const char* many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

// One line a reviewer reads first: whether anything regressed, then the rest.
std::string verdict(const SnapshotDiff& diff) {
  static const std::array<std::pair<const char*, const char*>, 9> kWords{{
      {"regression", "regressions"},
      {"fix", "fixes"},
      {"changed cause", "changed causes"},
      {"graph-break change", "graph-break changes"},
      {"status change", "status changes"},
      {"new case", "new cases"},
      {"removed case", "removed cases"},
      {"case outside the new selection", "cases outside the new selection"},
      {"case outside the old selection", "cases outside the old selection"},
  }};
  std::vector<std::string> parts;
  for (std::size_t i = 0; i < kSections.size(); ++i) {
    std::size_t n = diff.count(kSections[i].kind);
    if (n) parts.push_back(plural(n, kWords[i].first, kWords[i].second));
  }
  std::string rest;
  for (std::size_t i = 0; i < parts.size(); ++i) rest += (i ? ", " : "") + parts[i];
  if (diff.count(ChangeKind::kRegression)) return "❌ capmap: " + rest;
  if (parts.empty() && diff.header.empty()) return "✅ capmap: no changes";
  if (parts.empty()) return "✅ capmap: no regressions; only the header changed";
  return "✅ capmap: no regressions; " + rest;
}

std::string location_link(const PathChange& c) {
  if (c.location.empty()) return "";
  if (c.location_url.empty()) return fmt::format("`{}`", cell(c.location));
  return fmt::format("[`{}`]({})", cell(c.location), c.location_url);
}

}  // namespace

std::string diff_as_text(const SnapshotDiff& diff) {
  std::string out;
  if (!diff.header.empty()) {
    out += "Header:\n";
    for (const auto& h : diff.header) {
      out += fmt::format("  {}: {} → {}\n", h.key, h.old_value, h.new_value);
    }
  }
  if (!diff.selection_note.empty()) out += "Note: " + diff.selection_note + "\n";
  for (const auto& section : kSections) {
    std::size_t n = diff.count(section.kind);
    if (!n) continue;
    out += fmt::format("{} ({}):\n", section.title, n);
    for (const auto& c : diff.changes) {
      if (c.kind != section.kind) continue;
      if (c.path.empty()) {
        out += fmt::format("  {}\n", c.case_name);
      } else {
        out += fmt::format("  {} {}: {}\n", c.case_name, c.path, describe(c));
      }
    }
  }
  if (auto line = by_path_line(diff); !line.empty()) out += line + "\n";
  out += fmt::format("Summary: {}\n", summary(diff));
  return out;
}

std::string diff_as_markdown(const SnapshotDiff& diff) {
  std::string out = "### " + verdict(diff) + "\n";
  if (auto line = by_path_line(diff); !line.empty()) out += "\n" + line + "\n";
  if (!diff.selection_note.empty()) out += "\n> Note: " + cell(diff.selection_note) + "\n";
  if (diff.new_carried > 0) {
    out += fmt::format(
        "\n{} of {} case × path results were measured for this change; the other {} were "
        "carried over from the baseline.\n",
        diff.new_cells - diff.new_carried, diff.new_cells, diff.new_carried);
  }
  if (!diff.header.empty()) {
    std::string table = "| header | before | after |\n| --- | --- | --- |\n";
    for (const auto& h : diff.header) {
      table += fmt::format("| `{}` | {} | {} |\n", h.key, cell(h.old_value), cell(h.new_value));
    }
    out += "\n" + collapsible(fmt::format("Header ({})", diff.header.size()), diff.header.size(),
                              table, false);
  }
  for (const auto& section : kSections) {
    std::size_t n = diff.count(section.kind);
    if (!n) continue;
    bool cases_only = section.kind == ChangeKind::kNewCase ||
                      section.kind == ChangeKind::kRemovedCase ||
                      section.kind == ChangeKind::kOutsideNewSelection ||
                      section.kind == ChangeKind::kOutsideOldSelection;
    std::string table = cases_only
                            ? "| case |\n| --- |\n"
                            : "| case | path | change | where |\n| --- | --- | --- | --- |\n";
    std::size_t shown = 0;
    for (const auto& c : diff.changes) {
      if (c.kind != section.kind) continue;
      if (++shown > kMaxRowsPerList) continue;
      if (cases_only) {
        table += fmt::format("| `{}` |\n", cell(c.case_name));
      } else {
        table += fmt::format("| `{}` | {} | {} | {} |\n", cell(c.case_name), c.path,
                             cell(describe(c)), location_link(c));
      }
    }
    if (n > kMaxRowsPerList) {
      table += fmt::format("\n…and {} more (`capmap diff` lists them all).\n", n - kMaxRowsPerList);
    }
    out += "\n" + collapsible(fmt::format("{} ({})", section.title, n), n, table,
                              section.kind == ChangeKind::kRegression);
  }
  return out;
}

nlohmann::json diff_as_json(const SnapshotDiff& diff) {
  nlohmann::json out = nlohmann::json::object();
  nlohmann::json header = nlohmann::json::array();
  for (const auto& h : diff.header) {
    header.push_back({{"key", h.key}, {"old", h.old_value}, {"new", h.new_value}});
  }
  out["header"] = std::move(header);
  out["selection_note"] =
      diff.selection_note.empty() ? nlohmann::json() : nlohmann::json(diff.selection_note);
  nlohmann::json counts = nlohmann::json::object();
  for (const auto& section : kSections) {
    nlohmann::json items = nlohmann::json::array();
    for (const auto& c : diff.changes) {
      if (c.kind != section.kind) continue;
      if (c.path.empty()) {
        items.push_back(c.case_name);
        continue;
      }
      nlohmann::json item = {{"case", c.case_name},        {"path", c.path},
                             {"old_status", c.old_status}, {"new_status", c.new_status},
                             {"old_cause", c.old_cause},   {"new_cause", c.new_cause}};
      if (c.kind == ChangeKind::kBreaksChanged) {
        item["old_graph_breaks"] = c.old_breaks ? nlohmann::json(*c.old_breaks) : nlohmann::json();
        item["new_graph_breaks"] = c.new_breaks ? nlohmann::json(*c.new_breaks) : nlohmann::json();
      }
      items.push_back(std::move(item));
    }
    counts[section.json_key] = items.size();
    out[section.json_key] = std::move(items);
  }
  out["counts"] = std::move(counts);
  nlohmann::json by_path = nlohmann::json::object();
  for (const auto& [path, n] : per_path(diff)) {
    by_path[path] = {{"regressions", n.first}, {"fixes", n.second}};
  }
  out["by_path"] = std::move(by_path);
  return out;
}

}  // namespace capmap

#include "diff/diff_report.h"

#include <fmt/format.h>

#include <array>
#include <vector>

namespace capmap {
namespace {

struct Section {
  ChangeKind kind;
  const char* title;
  const char* json_key;
};

constexpr std::array<Section, 7> kSections{{
    {ChangeKind::kRegression, "Regressions", "regressions"},
    {ChangeKind::kFix, "Fixes", "fixes"},
    {ChangeKind::kCauseChanged, "Changed causes", "cause_changes"},
    {ChangeKind::kBreaksChanged, "Graph-break changes", "graph_break_changes"},
    {ChangeKind::kStatusChanged, "Status changes", "status_changes"},
    {ChangeKind::kNewCase, "New cases", "new_cases"},
    {ChangeKind::kRemovedCase, "Removed cases", "removed_cases"},
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

}  // namespace

std::string diff_as_text(const SnapshotDiff& diff) {
  std::string out;
  if (!diff.header.empty()) {
    out += "Header:\n";
    for (const auto& h : diff.header) {
      out += fmt::format("  {}: {} → {}\n", h.key, h.old_value, h.new_value);
    }
  }
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
  out += fmt::format("Summary: {}\n", summary(diff));
  return out;
}

std::string diff_as_markdown(const SnapshotDiff& diff) {
  std::string out = fmt::format("### capmap: {}\n", summary(diff));
  if (!diff.header.empty()) {
    out += "\n| header | before | after |\n| --- | --- | --- |\n";
    for (const auto& h : diff.header) {
      out += fmt::format("| `{}` | {} | {} |\n", h.key, cell(h.old_value), cell(h.new_value));
    }
  }
  for (const auto& section : kSections) {
    std::size_t n = diff.count(section.kind);
    if (!n) continue;
    out += fmt::format("\n**{} ({})**\n\n", section.title, n);
    bool cases_only =
        section.kind == ChangeKind::kNewCase || section.kind == ChangeKind::kRemovedCase;
    out += cases_only ? "| case |\n| --- |\n" : "| case | path | change |\n| --- | --- | --- |\n";
    for (const auto& c : diff.changes) {
      if (c.kind != section.kind) continue;
      if (cases_only) {
        out += fmt::format("| `{}` |\n", cell(c.case_name));
      } else {
        out += fmt::format("| `{}` | {} | {} |\n", cell(c.case_name), c.path, cell(describe(c)));
      }
    }
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
  return out;
}

}  // namespace capmap

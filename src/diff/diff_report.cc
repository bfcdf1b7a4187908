#include "diff/diff_report.h"

#include <fmt/format.h>

#include <array>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "diff/change_sections.h"

namespace capmap {
namespace {

// Lists longer than these fold into <details>; no list shows more than kMaxRowsPerList rows.
constexpr std::size_t kOpenRows = 10;
constexpr std::size_t kOpenRowsImportant = 25;
constexpr std::size_t kMaxRowsPerList = 200;

std::string breaks_text(const std::optional<long long>& breaks) {
  return breaks ? fmt::format("{}", *breaks) : std::string("-");
}

std::string status_with_cause(const std::string& status, const std::string& cause) {
  return cause.empty() ? status : fmt::format("{} ({})", status, cause);
}

// A page status as a Kornia maintainer reads it.
std::string verdict_words(const std::string& status) {
  static const std::map<std::string, std::string> words = {
      {"ok", "works"},
      {"ok-unverified", "works (output not compared)"},
      {"ok-breaks", "works with graph breaks"},
      {"mismatch", "wrong output"},
      {"fail", "fails"},
      {"crashed", "crashes"},
      {"timeout", "times out"},
      {"oom", "runs out of memory"},
      {"specialized", "fails (a size meant to vary was pinned)"},
      {"n/a", "not probed"},
      {"missing", "not probed"},
  };
  auto it = words.find(status);
  return it != words.end() ? it->second : status;
}

// Against Kornia's file: verdicts in words, each with its cause where it is not a success.
std::string describe_verdicts(const PathChange& c) {
  auto side = [](const std::string& status, const std::string& cause) {
    bool success = status == "ok" || status == "ok-unverified" || status == "ok-breaks";
    return status_with_cause(verdict_words(status), success ? "" : cause);
  };
  if (c.kind == ChangeKind::kBreaksChanged) {
    return fmt::format("graph breaks {} → {}", breaks_text(c.old_breaks),
                       breaks_text(c.new_breaks));
  }
  return fmt::format("{} → {}", side(c.old_status, c.old_cause), side(c.new_status, c.new_cause));
}

// One line describing a path change, without the case and path names.
std::string describe(const PathChange& c, const SnapshotDiff& diff) {
  if (diff.pairing && !c.path.empty()) return describe_verdicts(c);
  switch (c.kind) {
    case ChangeKind::kRegression:
    case ChangeKind::kFix:
    case ChangeKind::kStatusChanged:
    case ChangeKind::kProbedOnOneSide:
      return fmt::format("{} → {}", c.old_status, status_with_cause(c.new_status, c.new_cause));
    case ChangeKind::kCauseChanged:
      return fmt::format("{} → {}", status_with_cause(c.old_status, c.old_cause),
                         status_with_cause(c.new_status, c.new_cause));
    case ChangeKind::kBreaksChanged:
      return fmt::format("graph breaks {} → {}", breaks_text(c.old_breaks),
                         breaks_text(c.new_breaks));
    case ChangeKind::kSlowTimeout:
      return fmt::format(
          "{} in {:.0f} s → timeout at {:.0f} s, under 10 × as long: rerun it alone with a "
          "longer --timeout to tell a slower machine from a slower capture",
          c.old_status, c.old_seconds.value_or(0), c.new_limit_seconds.value_or(0));
    case ChangeKind::kConfigDiffers:
      return c.detail;
    case ChangeKind::kNewCase:
    case ChangeKind::kRemovedCase:
    case ChangeKind::kOutsideNewSelection:
    case ChangeKind::kOutsideOldSelection:
      break;
  }
  return "";
}

// The case as the reader finds it: against Kornia's file a pair's two names,
// "augmentation.Normalize (Kornia: Normalize)".
std::string case_label(const PathChange& c, const SnapshotDiff& diff) {
  if (c.old_name.empty() || !diff.pairing) return c.case_name;
  return fmt::format("{} ({}: {})", c.case_name, diff.pairing->old_label, c.old_name);
}

// Section titles; against Kornia's file a case without a partner is not "new" or "removed".
std::string section_title(const ChangeSection& section, const SnapshotDiff& diff) {
  if (!diff.pairing) return section.title;
  const auto& p = *diff.pairing;
  if (section.kind == ChangeKind::kNewCase) {
    return fmt::format("Only in {} (no {} case pairs with it)", p.new_label, p.old_label);
  }
  if (section.kind == ChangeKind::kRemovedCase) {
    return fmt::format("Only in {} (no {} case pairs with it)", p.old_label, p.new_label);
  }
  return section.title;
}

// 1234 → "1,234".
std::string thousands(std::size_t n) {
  std::string digits = std::to_string(n), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

// "Pairing: 913 of Kornia's 1,215 probed cases pair with a capmap case by package,
// operator and variant (...)": Kornia's side first, whichever side it is.
std::string pairing_line(const CasePairingSummary& p) {
  bool old_first = p.new_label != "Kornia" || p.old_label == "Kornia";
  std::size_t probed_paired = old_first ? p.old_probed_paired : p.new_probed_paired;
  std::size_t probed = old_first ? p.old_probed : p.new_probed;
  const std::string& first = old_first ? p.old_label : p.new_label;
  const std::string& second = old_first ? p.new_label : p.old_label;
  return fmt::format(
      "Pairing: {} of {}'s {} probed cases pair with a {} case by package, operator and "
      "variant ({} pairs; {} {} cases, {} {} cases)",
      thousands(probed_paired), first, thousands(probed), second, thousands(p.pairs), p.old_label,
      thousands(p.old_cases), p.new_label, thousands(p.new_cases));
}

// "Agreement on paired cells: compile 97.1 % (1,020 of 1,050; verdicts 98.0 %), …"
std::string agreement_line(const CasePairingSummary& p) {
  std::string line;
  for (const auto& [path, a] : p.agreement) {
    if (a.compared == 0) continue;
    line += fmt::format(
        "{}{} {:.1f} % ({} of {}; {:.1f} % with constant read as captured; verdicts {:.1f} %)",
        line.empty() ? "" : ", ", path, 100.0 * a.same_status / a.compared,
        thousands(a.same_status), thousands(a.compared),
        100.0 * a.same_captured_status / a.compared, 100.0 * a.same_verdict / a.compared);
  }
  return line.empty() ? "" : "Agreement on paired cells (same status): " + line;
}

std::string counted(ChangeKind kind, std::size_t n, const SnapshotDiff& diff);

std::string summary(const SnapshotDiff& diff) {
  std::vector<std::string> parts;
  for (const auto& section : kChangeSections) {
    std::size_t n = diff.count(section.kind);
    if (!n) continue;
    // Against Kornia's file in the reader's words; otherwise the JSON keys, as scripts read them.
    parts.push_back(diff.pairing ? counted(section.kind, n, diff)
                                 : fmt::format("{} {}", n, section.json_key));
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

// "By path: export-dynamic 1 regression; onnx 2 fixes", or empty when neither happened.
std::string by_path_line(const SnapshotDiff& diff) {
  std::string out;
  for (const auto& [path, n] : regressions_and_fixes_by_path(diff)) {
    std::vector<std::string> parts;
    if (n.first) parts.push_back(fmt::format("{} regression{}", n.first, n.first == 1 ? "" : "s"));
    if (n.second) parts.push_back(fmt::format("{} fix{}", n.second, n.second == 1 ? "" : "es"));
    out += fmt::format("{}{} {}", out.empty() ? "By path: " : "; ", path,
                       parts.size() == 2 ? parts[0] + ", " + parts[1] : parts[0]);
  }
  return out;
}

// Pipes would end a Markdown table cell; newlines would end the row.
std::string cell(const std::string& text) {
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

// How many of one kind, in the words of the reader's first line.
std::string counted(ChangeKind kind, std::size_t n, const SnapshotDiff& diff) {
  auto words = [n](const char* one, const char* many) { return plural(n, one, many); };
  switch (kind) {
    case ChangeKind::kRegression:
      return words("regression", "regressions");
    case ChangeKind::kSlowTimeout:
      return words("timeout of a slow capture", "timeouts of slow captures");
    case ChangeKind::kFix:
      return words("fix", "fixes");
    case ChangeKind::kCauseChanged:
      return words("changed cause", "changed causes");
    case ChangeKind::kBreaksChanged:
      return words("graph-break change", "graph-break changes");
    case ChangeKind::kStatusChanged:
      return words("status change", "status changes");
    case ChangeKind::kConfigDiffers:
      return words("pair with another configuration", "pairs with another configuration");
    case ChangeKind::kProbedOnOneSide:
      return words("result probed by one side only", "results probed by one side only");
    case ChangeKind::kNewCase:
      if (diff.pairing)
        return fmt::format("{} only in {}", words("case", "cases"), diff.pairing->new_label);
      return words("new case", "new cases");
    case ChangeKind::kRemovedCase:
      if (diff.pairing)
        return fmt::format("{} only in {}", words("case", "cases"), diff.pairing->old_label);
      return words("removed case", "removed cases");
    case ChangeKind::kOutsideNewSelection:
      return words("case outside the new selection", "cases outside the new selection");
    case ChangeKind::kOutsideOldSelection:
      return words("case outside the old selection", "cases outside the old selection");
  }
  return "";
}

// One line a reviewer reads first: whether anything regressed, then the rest.
std::string verdict(const SnapshotDiff& diff) {
  std::vector<std::string> parts;
  for (const auto& section : kChangeSections) {
    std::size_t n = diff.count(section.kind);
    if (n) parts.push_back(counted(section.kind, n, diff));
  }
  std::string rest;
  for (std::size_t i = 0; i < parts.size(); ++i) rest += (i ? ", " : "") + parts[i];
  if (diff.count(ChangeKind::kRegression)) return "❌ capmap: " + rest;
  if (diff.count(ChangeKind::kSlowTimeout)) return "⚠️ capmap: no regressions; " + rest;
  if (parts.empty() && diff.header.empty()) return "✅ capmap: no changes";
  if (parts.empty()) return "✅ capmap: no regressions; only the header changed";
  return "✅ capmap: no regressions; " + rest;
}

// "`augmentation.Normalize` (Kornia: `Normalize`)", or just "`name`".
std::string case_cell(const PathChange& c, const SnapshotDiff& diff) {
  if (c.old_name.empty() || !diff.pairing) return fmt::format("`{}`", cell(c.case_name));
  return fmt::format("`{}` ({}: `{}`)", cell(c.case_name), diff.pairing->old_label,
                     cell(c.old_name));
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
  if (diff.pairing) out += pairing_line(*diff.pairing) + "\n";
  if (diff.pairing && !agreement_line(*diff.pairing).empty()) {
    out += agreement_line(*diff.pairing) + "\n";
  }
  for (const auto& section : kChangeSections) {
    std::size_t n = diff.count(section.kind);
    if (!n) continue;
    out += fmt::format("{} ({}):\n", section_title(section, diff), n);
    for (const auto& c : diff.changes) {
      if (c.kind != section.kind) continue;
      if (!c.path.empty()) {
        out += fmt::format("  {} {}: {}\n", case_label(c, diff), c.path, describe(c, diff));
      } else if (!c.detail.empty()) {
        out += fmt::format("  {}: {}\n", case_label(c, diff), c.detail);
      } else {
        out += fmt::format("  {}\n", case_label(c, diff));
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
  if (diff.pairing) out += "\n" + pairing_line(*diff.pairing) + "\n";
  if (diff.pairing && !agreement_line(*diff.pairing).empty()) {
    out += "\n" + agreement_line(*diff.pairing) + "\n";
  }
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
  for (const auto& section : kChangeSections) {
    std::size_t n = diff.count(section.kind);
    if (!n) continue;
    bool cases_only = section.kind == ChangeKind::kNewCase ||
                      section.kind == ChangeKind::kRemovedCase ||
                      section.kind == ChangeKind::kOutsideNewSelection ||
                      section.kind == ChangeKind::kOutsideOldSelection;
    // Against Kornia's file a case row says why (no partner, another configuration).
    bool with_detail = diff.pairing && (cases_only || section.kind == ChangeKind::kConfigDiffers);
    std::string table;
    if (with_detail) {
      table = "| case | why |\n| --- | --- |\n";
    } else if (cases_only) {
      table = "| case |\n| --- |\n";
    } else {
      table = "| case | path | change | where |\n| --- | --- | --- | --- |\n";
    }
    std::size_t shown = 0;
    for (const auto& c : diff.changes) {
      if (c.kind != section.kind) continue;
      if (++shown > kMaxRowsPerList) continue;
      if (with_detail) {
        table += fmt::format("| {} | {} |\n", case_cell(c, diff), cell(c.detail));
      } else if (cases_only) {
        table += fmt::format("| {} |\n", case_cell(c, diff));
      } else {
        table += fmt::format("| {} | {} | {} | {} |\n", case_cell(c, diff), c.path,
                             cell(describe(c, diff)), location_link(c));
      }
    }
    if (n > kMaxRowsPerList) {
      table += fmt::format("\n…and {} more (`capmap diff` lists them all).\n", n - kMaxRowsPerList);
    }
    // Appended piece by piece: "\n" + string makes GCC 12 warn falsely at -O2 (-Wrestrict).
    out += '\n';
    out += collapsible(
        fmt::format("{} ({})", section_title(section, diff), n), n, table,
        section.kind == ChangeKind::kRegression || section.kind == ChangeKind::kSlowTimeout);
  }
  return out;
}

}  // namespace capmap

#include "render/changes_section.h"

#include <fmt/format.h>

#include <array>
#include <cstddef>

#include "render/html_escape.h"
#include "render/html_page.h"
#include "render/markdown_summary.h"

namespace capmap {
namespace {

struct ListedKind {
  const char* key;     // diff JSON key
  const char* title;   // the reader's words
  bool opens = false;  // shown open: what may need the reader
  bool rare = false;   // in the tally only when there is one
};

// In the order a reader needs them: what broke, what was fixed, what fails differently.
constexpr std::array<ListedKind, 4> kListed{{
    {"regressions", "Regressions", true},
    {"slow_timeouts", "Timeouts of slow captures", true, true},
    {"fixes", "Fixes"},
    {"cause_changes", "Changed causes"},
}};

// Counted in one line, not listed: they change no verdict.
constexpr std::array<ListedKind, 6> kCounted{{
    {"graph_break_changes", "graph-break counts changed"},
    {"status_changes", "supported with another status"},
    {"new_cases", "new cases"},
    {"removed_cases", "removed cases"},
    {"outside_new_selection", "only in the baseline's selection"},
    {"outside_old_selection", "only in this run's selection"},
}};

constexpr std::size_t kMaxRows = 200;

std::size_t count_of(const nlohmann::json& diff, const char* key) {
  auto it = diff.find(key);
  return it != diff.end() && it->is_array() ? it->size() : 0;
}

std::string text_of(const nlohmann::json& item, const char* key) {
  auto it = item.find(key);
  return it != item.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// A link that sets the page's search to the case, as a reader's own query would.
std::string case_link(const std::string& name) {
  std::string query;
  for (unsigned char c : name) {
    bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '.' || c == '_' || c == '-';
    query += plain ? std::string(1, static_cast<char>(c)) : fmt::format("%{:02X}", c);
  }
  return fmt::format("<a href=\"#q={}\">{}</a>", query, escape_html(name));
}

std::string status_cell(const nlohmann::json& item, const char* status_key, const char* cause_key) {
  std::string status = text_of(item, status_key);
  std::string cause = text_of(item, cause_key);
  std::string out = fmt::format("<span class=\"badge {}\">{}</span>", status_class(status),
                                escape_html(status.empty() ? "-" : status));
  if (!cause.empty()) out += " <span class=\"cm-change-cause\">" + escape_html(cause) + "</span>";
  return out;
}

std::string list_table(const nlohmann::json& items, const ListedKind& kind) {
  std::string rows;
  std::size_t shown = 0;
  for (const auto& item : items) {
    if (!item.is_object()) continue;
    if (++shown > kMaxRows) break;
    rows += fmt::format("<tr><td class=\"cm-name\">{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                        case_link(text_of(item, "case")), escape_html(text_of(item, "path")),
                        status_cell(item, "old_status", "old_cause"),
                        status_cell(item, "new_status", "new_cause"));
  }
  std::string more;
  if (items.size() > kMaxRows) {
    more = fmt::format(
        "<p class=\"cm-hint\">…and {} more: <code>capmap diff</code> lists them all.</p>\n",
        items.size() - kMaxRows);
  }
  return fmt::format(
      "<details class=\"cm-changes-list\"{}><summary>{} ({})</summary>\n"
      "<div class=\"cm-scroll\"><table class=\"cm-changes-table\">\n<thead><tr><th "
      "scope=\"col\">Case</th>"
      "<th scope=\"col\">Path</th><th scope=\"col\">Before</th><th "
      "scope=\"col\">Now</th></tr></thead>\n"
      "<tbody>\n{}</tbody></table></div>\n{}</details>\n",
      kind.opens ? " open" : "", kind.title, items.size(), rows, more);
}

}  // namespace

std::string changes_html(const PageChanges& changes) {
  std::string body = changes_html_body(changes);
  if (body.empty()) return {};
  return "<section aria-labelledby=\"cm-changes\">\n<h2 id=\"cm-changes\">Changes</h2>\n" + body +
         "</section>\n";
}

std::string changes_html_body(const PageChanges& changes) {
  const nlohmann::json& diff = changes.diff;
  if (!diff.is_object()) return {};
  std::string since = escape_html(changes.baseline);
  if (!changes.baseline_generated_at.empty()) {
    since += " (" + escape_html(changes.baseline_generated_at) + ")";
  }
  std::string out;
  std::string tally;
  for (const auto& kind : kListed) {
    if (kind.rare && !count_of(diff, kind.key)) continue;
    if (!tally.empty()) tally += ", ";
    tally += fmt::format("{} {}", count_of(diff, kind.key), kind.title);
  }
  std::string lowered;
  for (char c : tally) lowered += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  out += fmt::format("<p>Since {}: {}.</p>\n", since, escape_html(lowered));
  if (auto note = diff.find("selection_note"); note != diff.end() && note->is_string()) {
    out += "<p class=\"cm-hint\">" + escape_html(note->get<std::string>()) + "</p>\n";
  }
  for (const auto& kind : kListed) {
    auto it = diff.find(kind.key);
    if (it == diff.end() || !it->is_array() || it->empty()) continue;
    out += list_table(*it, kind);
  }
  std::string others;
  for (const auto& kind : kCounted) {
    std::size_t n = count_of(diff, kind.key);
    if (!n) continue;
    if (!others.empty()) others += ", ";
    others += fmt::format("{} {}", n, kind.title);
  }
  if (!others.empty()) {
    out += "<p class=\"cm-hint\">Also: " + escape_html(others) +
           " (<code>capmap diff</code> lists them).</p>\n";
  }
  return out;
}

std::string changes_markdown(const PageChanges& changes) {
  if (changes.markdown.empty()) return {};
  std::string body = changes.markdown;
  // The comment's verdict is its own heading; under this section's heading it is a lead line.
  if (body.starts_with("### ")) {
    std::size_t end = body.find('\n');
    std::string verdict = body.substr(4, end == std::string::npos ? std::string::npos : end - 4);
    body = "**" + verdict + "**" + (end == std::string::npos ? std::string() : body.substr(end));
  }
  std::string since = escape_markdown(changes.baseline);
  if (!changes.baseline_generated_at.empty()) {
    since += " (" + escape_markdown(changes.baseline_generated_at) + ")";
  }
  return "### Changes since " + since + "\n\n" + body + "\n";
}

}  // namespace capmap

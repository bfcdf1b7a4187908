#pragma once
// The "Changes" section of a page rendered with a baseline (`capmap render NEW
// --baseline OLD`): what changed since the baseline, regressions first, from the
// comparison `capmap diff` makes. The caller makes the comparison; this file
// only lays it out, so rendering needs no diff code.
#include <nlohmann/json.hpp>
#include <string>

namespace capmap {

struct PageChanges {
  std::string baseline;  // how the page names the baseline (its file name)
  std::string baseline_generated_at;
  nlohmann::json diff;   // `capmap diff --format json` of baseline → this snapshot
  std::string markdown;  // `capmap diff --format md` of the same, for the summary
};

// The HTML section (the page's `<section>`), empty when there is nothing to show.
std::string changes_html(const PageChanges& changes);

// The section's content without its heading, for a page that writes its own (RST).
std::string changes_html_body(const PageChanges& changes);

// The Markdown summary's section: a heading, then the diff's comment with its
// verdict line as bold text under that heading.
std::string changes_markdown(const PageChanges& changes);

}  // namespace capmap

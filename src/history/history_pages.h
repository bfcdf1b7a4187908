#pragma once
// The version matrix written for readers: an HTML page with search and
// filters, and the same table as Markdown and reStructuredText.
#include <string>

#include "history/version_matrix.h"

namespace capmap {

std::string history_html(const VersionMatrix& matrix, const std::string& title);
std::string history_markdown(const VersionMatrix& matrix, const std::string& title);
std::string history_rst(const VersionMatrix& matrix, const std::string& title);

// "2.9.1 → 2.11.0: 5,112 cells compared, 40 changed (12 regressions, 20 fixed); top causes: …"
std::string describe_step(const VersionStep& step);

}  // namespace capmap

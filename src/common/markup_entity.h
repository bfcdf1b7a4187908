#pragma once
// The one table of character entities for text that lands in HTML or XML: the
// page, the Markdown summary (which GitHub renders as HTML) and JUnit XML.
#include <string>

namespace capmap {

// Appends the entity of `c` when it is one of & < > " ' and returns true;
// returns false (appending nothing) for any other character. "&#39;" is read
// the same by HTML and XML parsers.
bool append_entity(std::string& out, char c);

}  // namespace capmap

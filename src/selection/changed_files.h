#pragma once
// What a change touched, in the two kinds that select different cases: files
// whose code changed select every case that runs them; files whose code is the
// same but whose lines moved (an edit of docstrings, comments or layout) select
// only the cases whose results cite one of their lines.
#include <string>
#include <vector>

namespace capmap {

struct ChangedFiles {
  std::vector<std::string> code;         // the code changed, or could not be compared
  std::vector<std::string> lines_moved;  // the same code at other lines
};

}  // namespace capmap

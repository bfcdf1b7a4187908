#include "merge/failure_signature.h"

#include <re2/re2.h>

namespace capmap {

std::string failure_signature(std::string_view message) {
  auto start = message.find_first_not_of(" \t\r\n");
  if (start == std::string_view::npos) return "";
  message.remove_prefix(start);
  std::string line(message.substr(0, message.find('\n')));
  // Order matters: quoted text and paths may contain numbers.
  // A single quote opens a quotation only where no letter precedes it: the
  // apostrophes of "can't" and "you're" are part of their words.
  static const RE2 single_quoted(R"((^|[^\w'])'[^']*')");
  static const RE2 quoted(R"("[^"]*"|`[^`]*`)");
  static const RE2 path(R"((?:[\w.-]*/)+[\w.-]+(?::\d+)?)");
  static const RE2 address(R"(0x[0-9a-fA-F]+)");
  // Digits inside names too: u0 and u1 are the same symbol to a reader.
  static const RE2 number(R"(\d+(?:\.\d+)?(?:e[-+]?\d+)?)");
  static const RE2 spaces(R"(\s+)");
  RE2::GlobalReplace(&line, single_quoted, "\\1'_'");
  RE2::GlobalReplace(&line, quoted, "'_'");
  RE2::GlobalReplace(&line, path, "<path>");
  RE2::GlobalReplace(&line, address, "<addr>");
  RE2::GlobalReplace(&line, number, "<n>");
  RE2::GlobalReplace(&line, spaces, " ");
  while (!line.empty() && line.back() == ' ') line.pop_back();
  return line;
}

}  // namespace capmap

#include "render/html_template.h"

namespace capmap {

std::string fill_template(const std::string& tmpl,
                          const std::map<std::string, std::string>& values) {
  std::string out;
  out.reserve(tmpl.size() + 1024);
  std::size_t pos = 0;
  while (true) {
    std::size_t start = tmpl.find("@@", pos);
    if (start == std::string::npos) break;
    std::size_t end = tmpl.find("@@", start + 2);
    if (end == std::string::npos) break;
    auto it = values.find(tmpl.substr(start + 2, end - start - 2));
    if (it == values.end()) {
      out.append(tmpl, pos, start + 2 - pos);
      pos = start + 2;
      continue;
    }
    out.append(tmpl, pos, start - pos);
    out += it->second;
    pos = end + 2;
  }
  out.append(tmpl, pos, std::string::npos);
  return out;
}

}  // namespace capmap

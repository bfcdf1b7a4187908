#include "render/url_templates.h"

#include <utility>

namespace capmap {
namespace {

std::string expand(std::string_view text,
                   std::initializer_list<std::pair<std::string_view, std::string_view>> values) {
  std::string out;
  out.reserve(text.size() + 32);
  std::size_t i = 0;
  while (i < text.size()) {
    bool replaced = false;
    if (text[i] == '{') {
      for (const auto& [key, value] : values) {
        if (text.substr(i + 1, key.size()) == key && i + 1 + key.size() < text.size() &&
            text[i + 1 + key.size()] == '}') {
          out += value;
          i += key.size() + 2;
          replaced = true;
          break;
        }
      }
    }
    if (!replaced) out += text[i++];
  }
  return out;
}

}  // namespace

std::string expand_source_url(std::string_view url_template, std::string_view revision,
                              std::string_view path, std::string_view line) {
  if (url_template.empty()) return {};
  return expand(url_template, {{"revision", revision}, {"path", path}, {"line", line}});
}

std::string expand_docs_url(std::string_view url_template, std::string_view ref) {
  if (url_template.empty() || ref.empty()) return {};
  return expand(url_template, {{"ref", ref}});
}

}  // namespace capmap

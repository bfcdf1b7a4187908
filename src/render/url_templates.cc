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

bool is_safe_link(std::string_view url) {
  for (char c : url) {
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) return false;
  }
  auto lower_starts = [&](std::string_view prefix) {
    if (url.size() < prefix.size()) return false;
    for (std::size_t i = 0; i < prefix.size(); ++i) {
      char c = url[i];
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
      if (c != prefix[i]) return false;
    }
    return true;
  };
  if (lower_starts("http://") || lower_starts("https://")) return true;
  // Relative: no ':' before the path, query or fragment starts (else it names a scheme).
  auto end = url.find_first_of("/?#");
  return url.substr(0, end).find(':') == std::string_view::npos;
}

std::string expand_source_url(std::string_view url_template, std::string_view revision,
                              std::string_view path, std::string_view line) {
  if (url_template.empty()) return {};
  std::string url = expand(url_template, {{"revision", revision}, {"path", path}, {"line", line}});
  return is_safe_link(url) ? url : std::string();
}

std::string expand_docs_url(std::string_view url_template, std::string_view ref) {
  if (url_template.empty() || ref.empty()) return {};
  std::string url = expand(url_template, {{"ref", ref}});
  return is_safe_link(url) ? url : std::string();
}

}  // namespace capmap

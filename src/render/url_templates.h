#pragma once
// Link templates from the snapshot header or the command line:
// source_url takes {revision}, {path}, {line}; docs_url takes {ref}.
#include <string>
#include <string_view>

namespace capmap {

struct UrlTemplates {
  std::string source_url;
  std::string docs_url;
};

// Replaces every known {placeholder}; unknown braces are kept as they are.
std::string expand_source_url(std::string_view url_template, std::string_view revision,
                              std::string_view path, std::string_view line);
std::string expand_docs_url(std::string_view url_template, std::string_view ref);

}  // namespace capmap

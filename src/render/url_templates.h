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

// True for an http(s) URL, or a relative one (no scheme) such as an inventory's
// "api.html#name"; false for any other scheme (javascript:, data:, ...) and for
// text with control characters or spaces, which browsers drop from a scheme.
bool is_safe_link(std::string_view url);

// Replaces every known {placeholder}; unknown braces are kept as they are.
// A result that is not a safe link (a snapshot's template or a substituted
// value made it javascript:...) gives no link: the empty string.
std::string expand_source_url(std::string_view url_template, std::string_view revision,
                              std::string_view path, std::string_view line);
std::string expand_docs_url(std::string_view url_template, std::string_view ref);

}  // namespace capmap

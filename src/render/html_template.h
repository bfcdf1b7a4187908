#pragma once
// The page templates (src/render/assets/*.html) mark where text goes with @@NAME@@.
#include <map>
#include <string>

namespace capmap {

// Replaces @@NAME@@ markers in one pass, so inserted text is never scanned
// again; a marker without a value is left as it is.
std::string fill_template(const std::string& tmpl,
                          const std::map<std::string, std::string>& values);

}  // namespace capmap

#pragma once
// A snapshot as JUnit XML, so CI systems show the survey as native test results:
// one <testsuite> per path, one <testcase> per case in it, a <failure> for each
// failing cell (its cause and message) and <skipped> where the path is n/a.
#include <nlohmann/json.hpp>
#include <string>

namespace capmap {

struct JunitCounts {
  std::size_t tests = 0, failures = 0, skipped = 0;
};

std::string snapshot_as_junit(const nlohmann::json& snapshot, JunitCounts* counts = nullptr);

// Text that is safe in XML element content and in double-quoted attributes.
// Characters XML 1.0 cannot hold (most C0 controls, invalid UTF-8) become U+FFFD.
std::string escape_xml(std::string_view text);

}  // namespace capmap

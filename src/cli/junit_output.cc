#include "cli/junit_output.h"

#include <cstdio>

#include "common/atomic_file.h"
#include "diff/junit_report.h"

namespace capmap {

void write_junit_report(const nlohmann::json& snapshot, const std::filesystem::path& file) {
  JunitCounts counts;
  std::string xml = snapshot_as_junit(snapshot, &counts);
  write_file_atomically(file, xml);
  std::fprintf(stderr, "junit: %zu tests, %zu failures, %zu skipped → %s\n", counts.tests,
               counts.failures, counts.skipped, file.c_str());
}

}  // namespace capmap

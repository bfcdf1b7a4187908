#include "diff/change_sections.h"

namespace capmap {

std::map<std::string, std::pair<std::size_t, std::size_t>> regressions_and_fixes_by_path(
    const SnapshotDiff& diff) {
  std::map<std::string, std::pair<std::size_t, std::size_t>> counts;
  for (const auto& c : diff.changes) {
    if (c.kind == ChangeKind::kRegression) ++counts[c.path].first;
    if (c.kind == ChangeKind::kFix) ++counts[c.path].second;
  }
  return counts;
}

}  // namespace capmap

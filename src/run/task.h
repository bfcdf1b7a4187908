#pragma once
// A task: one case and the paths still to probe for it. A worker's child runs
// the eager reference and then each path in turn.
#include <string>
#include <vector>

namespace capmap {

struct Task {
  std::string case_name;
  std::vector<std::string> paths;
  // Run in a newly forked child, never in one kept from earlier tasks: the
  // rerun of a task whose kept child died, so the death is the case's own.
  bool fresh = false;
};

}  // namespace capmap

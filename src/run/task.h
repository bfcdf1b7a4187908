#pragma once
// A task: one case and the paths still to probe for it. A worker's child runs
// the eager reference and then each path in turn.
#include <string>
#include <vector>

namespace capmap {

struct Task {
  std::string case_name;
  std::vector<std::string> paths;
};

}  // namespace capmap

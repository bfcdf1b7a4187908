#pragma once
// Runs `PYTHON -m MODULE ARGS...` for the commands whose work needs Python
// (the probed library, torch), with this process's stdin, stdout and stderr.
#include <functional>
#include <string>
#include <vector>

namespace capmap {

// Returns the exit status (128 + signal when killed). With `on_result`, the
// child also gets a pipe as fd 3 (`--results-fd 3` tells it so) and every
// line it writes there is handed to `on_result` as it arrives.
int run_python_module(const std::vector<std::string>& module_and_args,
                      const std::function<void(const std::string&)>& on_result = {});

}  // namespace capmap

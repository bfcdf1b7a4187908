#pragma once
// Checks, before any worker starts, that the interpreter a run's workers will
// use (`capmap run --python`, CAPMAP_PYTHON) can run them: it exists, is
// Python 3.10 or later, and sees torch and capmap's worker package.
#include <string>

namespace capmap {

// The interpreter's Python, torch and capmap versions, as it reports them.
struct PythonEnvironment {
  std::string python;
  std::string torch;
  std::string capmap;
};

// Throws UserError with one line naming `python` and what is wrong. `option`
// is how the user named it ("--python", "CAPMAP_PYTHON"), for the message.
PythonEnvironment check_python_environment(const std::string& python, const std::string& option);

}  // namespace capmap

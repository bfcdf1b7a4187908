#include "run/python_check.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <system_error>
#include <vector>

#include "common/child_process.h"
#include "common/user_error.h"

namespace capmap {
namespace {

// Runs under the interpreter being checked, so it must parse on old Pythons
// too: no f-strings, no walrus. find_spec looks torch up without importing it.
constexpr const char* kProbe = R"PY(
import json, sys
out = {"python": "%d.%d.%d" % sys.version_info[:3], "torch": None, "capmap": None}
try:
    import importlib.metadata as md
    import importlib.util as iu
    if iu.find_spec("torch") is not None:
        out["torch"] = md.version("torch")
    if iu.find_spec("capmap") is not None:
        import capmap
        out["capmap"] = getattr(capmap, "__version__", "?")
except Exception as exc:
    out["problem"] = "%s: %s" % (type(exc).__name__, exc)
print("CAPMAP-PYTHON-CHECK " + json.dumps(out))
)PY";

bool has_path_separator(const std::string& name) { return name.find('/') != std::string::npos; }

}  // namespace

PythonEnvironment check_python_environment(const std::string& python, const std::string& option) {
  const std::string named = fmt::format("{} {}", option, python);
  if (python.empty()) throw UserError(fmt::format("{}: empty interpreter path", option));
  if (has_path_separator(python)) {
    std::error_code ec;
    if (!std::filesystem::exists(python, ec)) {
      throw UserError(
          fmt::format("{}: no such file (give a Python interpreter, e.g. "
                      "ENV/bin/python of an environment `python -m capmap.make_env` "
                      "made)",
                      named));
    }
    if (std::filesystem::is_directory(python, ec)) {
      throw UserError(
          fmt::format("{}: is a folder; give its interpreter, e.g. {}/bin/python", named, python));
    }
    if (::access(python.c_str(), X_OK) != 0) {
      throw UserError(fmt::format("{}: not executable", named));
    }
  }
  int exit_code = 0;
  const std::string output = run_and_capture({python, "-c", kProbe}, exit_code, true);
  const auto mark = output.find("CAPMAP-PYTHON-CHECK ");
  if (mark == std::string::npos) {
    if (exit_code == 127)
      throw UserError(fmt::format("{}: cannot be run (not found on PATH)", named));
    throw UserError(
        fmt::format("{}: is not a Python interpreter (it did not run a Python one-liner; exit {})",
                    named, exit_code));
  }
  nlohmann::json facts = nlohmann::json::parse(output.substr(mark + 20), nullptr, false);
  if (!facts.is_object()) {
    throw UserError(
        fmt::format("{}: is not a Python interpreter (its answer was not JSON)", named));
  }
  PythonEnvironment environment;
  environment.python = facts.value("python", "");
  int major = 0, minor = 0;
  if (std::sscanf(environment.python.c_str(), "%d.%d", &major, &minor) != 2 || major != 3 ||
      minor < 10) {
    throw UserError(fmt::format("{}: runs Python {}; capmap's worker needs Python 3.10 or later",
                                named, environment.python));
  }
  if (facts.contains("problem")) {
    throw UserError(fmt::format("{}: cannot look up its packages: {}", named,
                                facts["problem"].get<std::string>()));
  }
  if (!facts["torch"].is_string()) {
    throw UserError(fmt::format(
        "{}: its environment has no torch (install one there, or make the environment with "
        "`python -m capmap.make_env DIR torch==VERSION LIBRARY`)",
        named));
  }
  environment.torch = facts["torch"].get<std::string>();
  if (!facts["capmap"].is_string()) {
    throw UserError(fmt::format(
        "{}: cannot import capmap's worker package (make the environment with `python -m "
        "capmap.make_env`, which copies it in, or add capmap's python/ folder to PYTHONPATH)",
        named));
  }
  environment.capmap = facts["capmap"].get<std::string>();
  return environment;
}

}  // namespace capmap

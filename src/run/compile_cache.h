#pragma once
// The compiler cache a run keeps between runs (`capmap run --compile-cache DIR`,
// or CAPMAP_COMPILE_CACHE): inductor's kernels and graphs, in a folder per torch
// and capmap version, so a CI job that restores DIR starts its compiles warm.
#include <filesystem>
#include <string>

#include "run/python_check.h"

namespace capmap {

// DIR/torch-<torch>-capmap-<capmap>, made if missing, as an absolute path.
// Throws UserError in one line naming DIR when it is not a folder or cannot be
// made. `option` is how the user named it, for the message.
std::filesystem::path prepare_compile_cache(const std::string& dir, const std::string& option,
                                            const PythonEnvironment& environment);

}  // namespace capmap

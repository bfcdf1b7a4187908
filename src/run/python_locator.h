#pragma once
// Which Python runs the workers: $CAPMAP_PYTHON, else python3 beside the
// capmap binary (a virtual environment's bin/), else python3 on PATH.
#include <string>

namespace capmap {

std::string locate_python();

}  // namespace capmap

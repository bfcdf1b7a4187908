#pragma once
// An error caused by what the user gave us (bad flag, bad file, bad registry).
// main() prints its message on one line and exits with code 2.
#include <stdexcept>
#include <string>

namespace capmap {

struct UserError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace capmap

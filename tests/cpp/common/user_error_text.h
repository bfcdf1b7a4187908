#pragma once
// The one line a UserError carries, or "" when the body ran without one.
#include <functional>
#include <string>

#include "common/user_error.h"

namespace capmap::testing {

inline std::string error_of(const std::function<void()>& body) {
  try {
    body();
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

}  // namespace capmap::testing

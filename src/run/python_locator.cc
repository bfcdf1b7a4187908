#include "run/python_locator.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace capmap {

std::string locate_python() {
  if (const char* env = std::getenv("CAPMAP_PYTHON"); env != nullptr && *env != '\0') return env;
  std::error_code ec;
  auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    auto beside = self.parent_path() / "python3";
    if (::access(beside.c_str(), X_OK) == 0) return beside.string();
  }
  return "python3";
}

}  // namespace capmap

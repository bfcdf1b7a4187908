#include "run/compile_cache.h"

#include <fmt/format.h>

#include <system_error>

#include "common/user_error.h"

namespace capmap {

std::filesystem::path prepare_compile_cache(const std::string& dir, const std::string& option,
                                            const PythonEnvironment& environment) {
  namespace fs = std::filesystem;
  std::error_code error;
  fs::path root = fs::absolute(dir, error);
  if (error || dir.empty()) throw UserError(fmt::format("{} '{}': not a usable path", option, dir));
  if (fs::exists(root, error) && !fs::is_directory(root, error)) {
    throw UserError(fmt::format("{} {}: exists and is not a folder", option, root.string()));
  }
  // Kernels of another torch are never found, so each version gets its own folder,
  // and an upgrade leaves the old one whole until the CI cache drops it.
  fs::path folder = root / fmt::format("torch-{}-capmap-{}", environment.torch, environment.capmap);
  fs::create_directories(folder, error);
  if (error) {
    throw UserError(
        fmt::format("{} {}: cannot make the folder: {}", option, folder.string(), error.message()));
  }
  return folder;
}

}  // namespace capmap

#include "run/shared_code_folder.h"

#include <stdlib.h>

#include <string>
#include <system_error>

namespace capmap {

namespace {
constexpr const char* kVariable = "CAPMAP_CODE_HASHES";
}  // namespace

SharedCodeFolder::SharedCodeFolder() {
  std::error_code error;
  auto base = std::filesystem::temp_directory_path(error);
  if (error) return;
  std::string name = (base / "capmap-code-XXXXXX").string();
  if (mkdtemp(name.data()) == nullptr) return;
  path_ = name;
  setenv(kVariable, name.c_str(), 1);
}

SharedCodeFolder::~SharedCodeFolder() {
  if (path_.empty()) return;
  unsetenv(kVariable);
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

}  // namespace capmap

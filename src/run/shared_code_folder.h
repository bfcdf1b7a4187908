#pragma once
// The folder a run's workers share the library files' code hashes through (one
// parse of each file per run, see python/capmap/tracing/file_trace.py). The supervisor
// owns it, so a worker killed mid-run leaves nothing behind: it is made in the
// system's temporary folder, named to the workers by CAPMAP_CODE_HASHES, and
// removed when the run ends.
#include <filesystem>

namespace capmap {

class SharedCodeFolder {
 public:
  // Makes the folder and sets CAPMAP_CODE_HASHES; on failure the workers make
  // their own (the variable is left unset).
  SharedCodeFolder();
  ~SharedCodeFolder();  // removes the folder and unsets the variable
  SharedCodeFolder(const SharedCodeFolder&) = delete;
  SharedCodeFolder& operator=(const SharedCodeFolder&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace capmap

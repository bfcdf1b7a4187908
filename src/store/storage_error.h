#pragma once
// StorageError: the store's file system refused (full disk, read-only file or
// folder, the file or its folder gone). The message names the cause in words a
// user can act on, never SQLite's "disk I/O error".
#include <filesystem>
#include <string>

#include "common/user_error.h"

namespace capmap {

struct StorageError : UserError {
  using UserError::UserError;
};

// The cause of a failed store operation: from SQLite's (extended) result code
// and the OS error behind it (0 when unknown), checked against the file
// system. Empty when it is not a storage problem (a malformed file, a bug).
std::string storage_cause(const std::filesystem::path& store, int sqlite_code, int os_error);

// "STORE: WHAT: CAUSE" as a StorageError, the cause named from OS_ERROR.
StorageError storage_error(const std::filesystem::path& store, const std::string& what,
                           int os_error);

}  // namespace capmap

#include "store/storage_error.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <cerrno>
#include <cstring>
#include <system_error>

namespace capmap {

namespace {

std::string folder_of(const std::filesystem::path& store) {
  auto parent = store.parent_path();
  return parent.empty() ? std::string(".") : parent.string();
}

// What the file system looks like now: the likeliest reason an operation on a
// store that opened fine starts failing is that the store or its folder went away.
std::string vanished(const std::filesystem::path& store) {
  std::error_code ec;
  auto folder = store.parent_path();
  if (!folder.empty() && !std::filesystem::exists(folder, ec)) {
    return fmt::format("the folder {} holding the store was removed or moved", folder.string());
  }
  if (!std::filesystem::exists(store, ec)) {
    return fmt::format("{} was removed or moved while in use", store.string());
  }
  return {};
}

}  // namespace

std::string storage_cause(const std::filesystem::path& store, int sqlite_code, int os_error) {
  const int primary = sqlite_code & 0xff;
  if (os_error == ENOSPC || primary == SQLITE_FULL) {
    return fmt::format("no space left on the device holding {}", store.string());
  }
  if (os_error == EDQUOT) {
    return fmt::format("disk quota exceeded on the device holding {}", store.string());
  }
  if (sqlite_code == SQLITE_READONLY_DBMOVED || os_error == ENOENT || os_error == ESTALE) {
    std::string gone = vanished(store);
    return gone.empty() ? fmt::format("{} was moved or replaced while in use", store.string())
                        : gone;
  }
  if (os_error == EROFS) {
    return fmt::format("{} is on a read-only file system", store.string());
  }
  if (primary == SQLITE_READONLY || os_error == EACCES || os_error == EPERM) {
    return fmt::format("{} is read-only (no write permission on the file or on its folder {})",
                       store.string(), folder_of(store));
  }
  if (primary == SQLITE_IOERR || primary == SQLITE_CANTOPEN) {
    std::string gone = vanished(store);
    if (!gone.empty()) return gone;
    if (os_error == EIO) {
      return fmt::format("input/output error on the device holding {}", store.string());
    }
    if (os_error != 0) {
      return fmt::format("{} ({})", std::strerror(os_error), sqlite3_errstr(sqlite_code));
    }
  }
  return {};
}

StorageError storage_error(const std::filesystem::path& store, const std::string& what,
                           int os_error) {
  std::string cause = storage_cause(store, 0, os_error);
  if (cause.empty()) cause = std::strerror(os_error);
  return StorageError(fmt::format("{}: {}: {}", store.string(), what, cause));
}

}  // namespace capmap

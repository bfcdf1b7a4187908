#include "store/store_lock.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

#include "common/user_error.h"
#include "store/result_store.h"
#include "store/storage_error.h"

namespace capmap {

namespace {

// What the holder wrote into the lock file, as "run PID since TIME".
std::string describe_holder(int fd) {
  char buffer[256];
  ssize_t n = ::pread(fd, buffer, sizeof buffer - 1, 0);
  std::string text(buffer, n > 0 ? static_cast<std::size_t>(n) : 0);
  auto field = [&](const std::string& key) {
    auto start = text.find(key + "=");
    if (start == std::string::npos) return std::string("?");
    start += key.size() + 1;
    auto end = text.find_first_of(" \n", start);
    return text.substr(start, end == std::string::npos ? std::string::npos : end - start);
  };
  return fmt::format("run {} since {}", field("pid"), field("since"));
}

UserError in_use(const std::filesystem::path& store, int fd) {
  return UserError(
      fmt::format("{}: store in use by {}; wait for it to finish, or give this run another --store",
                  store.string(), describe_holder(fd)));
}

}  // namespace

std::filesystem::path StoreLock::lock_file(const std::filesystem::path& store) {
  return std::filesystem::path(store.string() + ".lock");
}

StoreLock StoreLock::acquire(const std::filesystem::path& store) {
  const auto file = lock_file(store);
  int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) throw storage_error(store, "cannot create the lock file " + file.string(), errno);
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    int error = errno;
    if (error == EWOULDBLOCK) {
      UserError busy = in_use(store, fd);
      ::close(fd);
      throw busy;
    }
    ::close(fd);
    throw storage_error(store, "cannot lock " + file.string(), error);
  }
  std::string holder = fmt::format("pid={} since={}\n", ::getpid(), utc_timestamp());
  if (::ftruncate(fd, 0) != 0 ||
      ::pwrite(fd, holder.data(), holder.size(), 0) != static_cast<ssize_t>(holder.size())) {
    int error = errno;
    ::close(fd);
    throw storage_error(store, "cannot write the lock file " + file.string(), error);
  }
  return StoreLock(fd);
}

void StoreLock::check_free(const std::filesystem::path& store) {
  int fd = ::open(lock_file(store).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;  // never locked, or not readable: acquire() will say
  if (::flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK) {
    UserError busy = in_use(store, fd);
    ::close(fd);
    throw busy;
  }
  ::close(fd);  // drops the shared lock
}

StoreLock::StoreLock(StoreLock&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}

StoreLock& StoreLock::operator=(StoreLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

StoreLock::~StoreLock() {
  if (fd_ >= 0) ::close(fd_);  // closing drops the flock
}

}  // namespace capmap

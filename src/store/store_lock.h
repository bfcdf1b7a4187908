#pragma once
// StoreLock: one `capmap run` per results store at a time. Two runs on one
// store would both run the same tasks (each plans from what is stored when it
// starts), so the second is refused, naming the run that holds the store.
//
// The lock is an flock(2) on the file STORE.lock beside the store, which also
// holds "pid=PID since=TIME" of the holder. The kernel drops the lock when the
// holder exits in any way (kill -9 included), so a stale lock file never blocks
// a later run. The file itself is left in place: deleting it would let two runs
// lock two different files of the same name.
#include <filesystem>
#include <string>

namespace capmap {

class StoreLock {
 public:
  // Takes the lock for STORE, or throws UserError
  // ("STORE: store in use by run PID since TIME; ...") when a run holds it.
  static StoreLock acquire(const std::filesystem::path& store);
  // Throws the same UserError when a run holds the lock; takes nothing.
  static void check_free(const std::filesystem::path& store);

  StoreLock(StoreLock&& other) noexcept;
  StoreLock& operator=(StoreLock&& other) noexcept;
  StoreLock(const StoreLock&) = delete;
  StoreLock& operator=(const StoreLock&) = delete;
  ~StoreLock();

  static std::filesystem::path lock_file(const std::filesystem::path& store);

 private:
  explicit StoreLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

}  // namespace capmap

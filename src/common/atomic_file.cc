#include "common/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "common/user_error.h"

namespace capmap {

void write_file_atomically(const std::filesystem::path& path, std::string_view contents) {
  auto parent = path.parent_path();
  if (!parent.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(parent, ec);
  }
  std::string tmp = path.string() + ".tmp." + std::to_string(getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw UserError(path.string() + ": cannot write: " + std::strerror(errno));
  const char* p = contents.data();
  size_t left = contents.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      throw UserError(path.string() + ": cannot write: " + std::strerror(err));
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  ::fsync(fd);
  ::close(fd);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    throw UserError(path.string() + ": cannot replace: " + std::strerror(err));
  }
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError(path.string() + ": cannot read: " + std::strerror(errno));
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

}  // namespace capmap

#include "common/atomic_file.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>

#include "common/user_error.h"

namespace capmap {
namespace {

std::filesystem::path make_temp_dir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "capmap-common-XXXXXX").string();
  return mkdtemp(pattern.data());
}

TEST(AtomicFile, WritesCreatesFoldersAndReplaces) {
  auto dir = make_temp_dir();
  auto file = dir / "sub" / "out.txt";
  write_file_atomically(file, "first");
  EXPECT_EQ(read_file(file), "first");
  write_file_atomically(file, "second, longer");
  EXPECT_EQ(read_file(file), "second, longer");
  // No temporary file is left beside it.
  size_t entries = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir / "sub")) ++entries;
  EXPECT_EQ(entries, 1u);
  std::filesystem::remove_all(dir);
}

TEST(AtomicFile, MissingFileIsAUserErrorNamingIt) {
  auto dir = make_temp_dir();
  try {
    read_file(dir / "absent.json");
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("absent.json"), std::string::npos);
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace capmap

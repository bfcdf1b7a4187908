#pragma once
// Writes a whole file or nothing: temp file in the same directory, fsync, rename.
#include <filesystem>
#include <string_view>

namespace capmap {

// Throws UserError naming the path when it cannot be written.
void write_file_atomically(const std::filesystem::path& path, std::string_view contents);

// Reads a whole file; throws UserError naming the path when it cannot.
std::string read_file(const std::filesystem::path& path);

}  // namespace capmap

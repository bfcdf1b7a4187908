#pragma once
// Sizes given on the command line: "8G", "512M", "1.5GiB", "4096".
#include <cstdint>
#include <string>
#include <string_view>

namespace capmap {

// Binary units (K = 1024). Throws UserError naming the text when it is not a size.
std::uint64_t parse_byte_size(std::string_view text);

// "1.5 GiB", "300 MiB", "12 KiB", "100 B".
std::string format_byte_size(std::uint64_t bytes);

}  // namespace capmap

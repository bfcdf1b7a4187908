#pragma once
// Cuts a byte stream into lines. A line longer than the limit is dropped
// whole (and counted) instead of growing memory without bound.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace capmap {

class LineSplitter {
 public:
  explicit LineSplitter(size_t max_line_bytes = 64u << 20) : max_line_bytes_(max_line_bytes) {}

  // Appends bytes; complete lines are appended to `lines` (without '\n').
  void feed(std::string_view bytes, std::vector<std::string>& lines);
  // Lines dropped for being longer than the limit.
  size_t oversized_lines() const { return oversized_; }
  // Bytes of an unfinished last line (left when the stream ended mid-line).
  const std::string& pending() const { return partial_; }

 private:
  size_t max_line_bytes_;
  std::string partial_;
  bool discarding_ = false;
  size_t oversized_ = 0;
};

}  // namespace capmap

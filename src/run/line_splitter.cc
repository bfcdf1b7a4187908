#include "run/line_splitter.h"

namespace capmap {

void LineSplitter::feed(std::string_view bytes, std::vector<std::string>& lines) {
  while (!bytes.empty()) {
    size_t newline = bytes.find('\n');
    std::string_view piece = bytes.substr(0, newline);
    if (!discarding_) {
      if (partial_.size() + piece.size() > max_line_bytes_) {
        discarding_ = true;
        partial_.clear();
        partial_.shrink_to_fit();
        ++oversized_;
      } else {
        partial_.append(piece);
      }
    }
    if (newline == std::string_view::npos) return;
    if (!discarding_) lines.push_back(std::move(partial_));
    partial_.clear();
    discarding_ = false;
    bytes.remove_prefix(newline + 1);
  }
}

}  // namespace capmap

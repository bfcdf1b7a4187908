#pragma once
// Picks runs by their environment: `torch=2.9.1,onnxscript=0.5.7`. Each name is
// a key of a run's `versions` (torch, onnx, onnxruntime, onnxscript, python) or
// `library` (the library's version). A value matches itself and any longer
// release that starts with it and a dot or `+`: `2.9` matches 2.9.1, `2.13.0`
// matches 2.13.0+cpu.
#include <string>
#include <utility>
#include <vector>

namespace capmap {

using VersionFilter = std::vector<std::pair<std::string, std::string>>;

// Throws UserError naming the bad part.
VersionFilter parse_version_filter(const std::string& text);

bool version_matches(const std::string& wanted, const std::string& actual);

}  // namespace capmap

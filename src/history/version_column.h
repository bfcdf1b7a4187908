#pragma once
// One column of the version matrix: a snapshot of the library under one
// environment (or Kornia's own data file), reduced to what the matrix shows.
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace capmap {

struct VersionCell {
  std::string status;  // page status (ok, ok-breaks, fail, constant, ...)
  std::string cause;   // the reader's cause; empty for ok
};

struct VersionColumn {
  std::string file;         // as given on the command line
  std::string torch;        // "2.9.1" (a local build tag such as +cpu dropped)
  std::string label;        // "torch 2.9.1", "torch 2.9.1 (Kornia's file)"
  std::string environment;  // "onnxscript 0.5.7, onnx 1.21.0, onnxruntime 1.23.2, kornia 0.9.0"
  bool reference = false;   // Kornia's file: shown, never part of the version axis
  bool sample = false;      // a selection of the registry, not all of it
  std::size_t cases = 0;
  std::size_t registry_cases = 0;
  nlohmann::json snapshot;  // the file as a snapshot (snapshot/snapshot_file.h)
  // case name → path → cell; Kornia's file under the names of the capmap case
  // each of its cases pairs with (version_matrix.h).
  std::map<std::string, std::map<std::string, VersionCell>> cells;
};

// Reads a snapshot or Kornia's file; throws UserError naming the file.
VersionColumn load_version_column(const std::filesystem::path& file);

// The cells of a snapshot by its own case names.
std::map<std::string, std::map<std::string, VersionCell>> cells_by_name(
    const nlohmann::json& snapshot);

// "2.9.1+cu128" < "2.11.0": releases compared number by number.
bool torch_version_less(const std::string& a, const std::string& b);

}  // namespace capmap

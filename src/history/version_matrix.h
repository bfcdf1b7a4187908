#pragma once
// The version matrix: for every operator × path, its status under each torch
// version surveyed, and a phrase that says where it works ("since torch 2.11",
// "broke in torch 2.12, works again in 2.14"). Regressions between
// consecutive versions come first.
#include <optional>
#include <string>
#include <vector>

#include "history/version_column.h"

namespace capmap {

enum class VersionChange { kRegression, kFixed, kChanged, kSame };

// "regression", "fixed", "changed", "same".
const char* change_kind_name(VersionChange kind);

struct MatrixRow {
  std::string name;  // the case
  std::string operator_name;
  std::string group;
  std::string public_name;  // "kornia.geometry.transform.warp_affine"; may be empty
  std::string path;         // onnx, export, compile, ...
  std::vector<std::optional<VersionCell>> cells;  // one per column; empty: not surveyed there
  std::string summary;
  VersionChange kind = VersionChange::kSame;
};

// What changed from one version of the axis to the next.
struct VersionStep {
  std::string from, to;
  std::size_t compared = 0;  // operator × path cells present in both
  std::size_t changed = 0;   // of those, a different status
  std::size_t regressions = 0;
  std::size_t fixes = 0;
  std::vector<std::pair<std::string, std::size_t>> top_causes;  // of the changes, most first
};

struct VersionMatrix {
  std::vector<VersionColumn>
      columns;  // display order: the axis by torch, the reference beside its own
  std::vector<std::string> paths;
  std::vector<MatrixRow> rows;
  std::vector<VersionStep> steps;
  std::string library;  // the surveyed library's name (one per matrix); empty when unnamed
  std::size_t reference_pairs = 0;  // cases of Kornia's file paired with a capmap case
  std::size_t reference_unpaired = 0;
};

// Throws UserError when two snapshots share a torch version, when only
// Kornia's file is given, or when the snapshots are of different libraries.
VersionMatrix build_version_matrix(std::vector<VersionColumn> columns);

// The phrase for statuses in version order (absent ones skipped).
std::string support_summary(
    const std::vector<std::pair<std::string, std::string>>& versions_and_statuses);

}  // namespace capmap

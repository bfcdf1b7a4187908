#pragma once
// What changed between two snapshots: per case and path, and in the header.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace capmap {

enum class ChangeKind {
  kRegression,     // was supported (ok, ok-breaks, ok-unverified), now is not
  kFix,            // was not supported, now is
  kCauseChanged,   // still not supported, but the status or the cause changed
  kStatusChanged,  // still supported, but e.g. ok → ok-unverified
  kBreaksChanged,  // still supported, the graph-break count changed
  kNewCase,
  kRemovedCase,
  kOutsideNewSelection,  // only the old side holds it, and the new run did not select it
  kOutsideOldSelection,  // only the new side holds it, and the old run did not select it
};

struct PathChange {
  ChangeKind kind;
  std::string case_name;
  std::string path;                    // empty for new and removed cases
  std::string old_status, new_status;  // page statuses
  std::string old_cause, new_cause;
  std::optional<long long> old_breaks, new_breaks;
  // Where it happens: the innermost library frame (`pkg/file.py:LINE`) of the new
  // record, else of the old one, and its link through the snapshot's source_url.
  std::string location, location_url;
};

struct HeaderChange {
  std::string key;  // dotted, e.g. versions.torch
  std::string old_value, new_value;
};

struct SnapshotDiff {
  std::vector<HeaderChange> header;
  std::vector<PathChange> changes;  // by case name, then path
  std::size_t new_cells = 0;        // case × path results in the new snapshot
  std::size_t new_carried = 0;      // of those, carried over from a baseline

  // Set when the two sides measured different selections of the registry.
  std::string selection_note;

  std::size_t count(ChangeKind kind) const;
};

SnapshotDiff diff_snapshots(const nlohmann::json& old_snapshot, const nlohmann::json& new_snapshot);

}  // namespace capmap

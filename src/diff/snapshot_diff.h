#pragma once
// What changed between two snapshots: per case and path, and in the header.
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace capmap {

enum class ChangeKind {
  kRegression,  // was supported (ok, ok-breaks, ok-unverified), now is not
  // Was supported in S seconds, now timed out under a limit below 10 × S: the
  // capture may only have been slower here (the machine, a cold compiler cache).
  kSlowTimeout,
  kFix,            // was not supported, now is
  kCauseChanged,   // still not supported, but the status or the cause changed
  kStatusChanged,  // still supported, but e.g. ok → ok-unverified
  kBreaksChanged,  // still supported, the graph-break count changed
  kNewCase,
  kRemovedCase,
  kOutsideNewSelection,  // only the old side holds it, and the new run did not select it
  kOutsideOldSelection,  // only the new side holds it, and the old run did not select it
  // Against Kornia's data file only:
  kProbedOnOneSide,  // one side did not probe that path (n/a), the other did
  kConfigDiffers,    // paired as the one case of its operator, with another variant
};

struct PathChange {
  ChangeKind kind = ChangeKind::kRegression;
  std::string case_name;
  std::string path;                    // empty for new and removed cases
  std::string old_status, new_status;  // page statuses
  std::string old_cause, new_cause;
  std::optional<long long> old_breaks, new_breaks;
  // A timeout's limit, and the seconds the other side's supported result took.
  std::optional<double> old_seconds, new_limit_seconds;
  // Where it happens: the innermost library frame (`pkg/file.py:LINE`) of the new
  // record, else of the old one, and its link through the snapshot's source_url.
  std::string location, location_url;
  // Against Kornia's data file, where a pair's names may differ: the old side's
  // name when it does, and a line for the reader (why a case has no partner, how
  // a configuration differs).
  std::string old_name;
  std::string detail;
};

struct HeaderChange {
  std::string key;  // dotted, e.g. versions.torch
  std::string old_value, new_value;
};

// On one path, the paired cells both sides probed (neither n/a), and how many
// of them agree: the same status (crashes and the like read as Kornia's `fail`),
// the same status and the same verdict (supported or not) with a `constant` cell
// read as the status it was captured with (Kornia's scripts have no such status).
struct PathAgreement {
  std::size_t compared = 0, same_status = 0, same_verdict = 0;
  // The same status once a `constant` cell is read as the status it was captured with.
  std::size_t same_captured_status = 0;
};

// How the cases of the two sides were paired, when one is Kornia's data file.
struct CasePairingSummary {
  std::string old_label, new_label;  // "Kornia" or "capmap" ("old"/"new" when alike)
  std::size_t old_cases = 0, new_cases = 0, pairs = 0;
  // Cases with a path probed (not n/a), and how many of them found a partner.
  std::size_t old_probed = 0, old_probed_paired = 0, new_probed = 0, new_probed_paired = 0;
  std::map<std::string, PathAgreement> agreement;  // by path
};

struct SnapshotDiff {
  std::vector<HeaderChange> header;
  std::vector<PathChange> changes;  // by case name, then path
  std::size_t new_cells = 0;        // case × path results in the new snapshot
  std::size_t new_carried = 0;      // of those, carried over from a baseline

  // Set when the two sides measured different selections of the registry.
  std::string selection_note;

  // Set when either side is Kornia's data file: its cases pair by package,
  // operator and variant, and statuses compare as verdicts (see docs/reference/diff.md).
  std::optional<CasePairingSummary> pairing;

  std::size_t count(ChangeKind kind) const;
};

SnapshotDiff diff_snapshots(const nlohmann::json& old_snapshot, const nlohmann::json& new_snapshot);

}  // namespace capmap

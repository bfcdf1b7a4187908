#include "diff/snapshot_diff.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "diff/case_identity.h"
#include "diff/case_pairing.h"
#include "diff/header_changes.h"
#include "render/url_templates.h"
#include "selection/run_selection.h"

namespace capmap {
namespace {

bool supported(const std::string& page_status) {
  return page_status == "ok" || page_status == "ok-breaks" || page_status == "ok-unverified";
}

struct PathView {
  std::string status;
  std::string cause;
  std::optional<long long> breaks;
  std::optional<double> seconds, limit_seconds;
  std::string frame;  // innermost library frame, "pkg/file.py:LINE in fn"
};

// How a snapshot turns a frame into a link: its source_url template and revision.
struct SourceLinks {
  std::string url_template, revision;

  explicit SourceLinks(const nlohmann::json& snapshot) {
    const auto& header = snapshot.at("header");
    auto library = header.find("library");
    if (library == header.end() || !library->is_object()) return;
    if (auto u = library->find("source_url"); u != library->end() && u->is_string()) {
      url_template = u->get<std::string>();
    }
    if (auto r = library->find("revision"); r != library->end() && r->is_string()) {
      revision = r->get<std::string>();
    }
  }

  // "pkg/file.py:12 in fn" → {"pkg/file.py:12", link}.
  std::pair<std::string, std::string> locate(const std::string& frame) const {
    std::string location = frame.substr(0, frame.find(" in "));
    auto colon = location.rfind(':');
    if (colon == std::string::npos) return {location, ""};
    return {location, expand_source_url(url_template, revision, location.substr(0, colon),
                                        location.substr(colon + 1))};
  }
};

PathView view(const nlohmann::json& record) {
  PathView v;
  v.status = record.value("page_status", record.value("status", std::string("n/a")));
  auto cause = record.find("cause");
  if (cause != record.end() && cause->is_string()) v.cause = cause->get<std::string>();
  auto breaks = record.find("graph_breaks");
  if (breaks != record.end() && breaks->is_number_integer()) v.breaks = breaks->get<long long>();
  for (auto [key, field] :
       {std::pair{"seconds", &v.seconds}, {"limit_seconds", &v.limit_seconds}}) {
    auto it = record.find(key);
    if (it != record.end() && it->is_number()) *field = it->get<double>();
  }
  auto frames = record.find("frames");
  if (frames != record.end() && frames->is_array() && !frames->empty() &&
      frames->back().is_string()) {
    v.frame = frames->back().get<std::string>();
  }
  return v;
}

std::set<std::string> header_paths(const nlohmann::json& snapshot) {
  std::set<std::string> paths;
  const auto& header = snapshot.at("header");
  auto it = header.find("paths");
  if (it != header.end() && it->is_array()) {
    for (const auto& p : *it) {
      if (p.is_string()) paths.insert(p.get<std::string>());
    }
  }
  return paths;
}

// A capture as slow as ten times the other side's never counts as slow only:
// a timeout under a shorter limit may be the machine or a cold compiler cache.
constexpr double kSlowerThanMachine = 10.0;

bool slow_timeout(const PathView& before, const PathView& after) {
  return after.status == "timeout" && before.seconds && after.limit_seconds &&
         *after.limit_seconds < kSlowerThanMachine * *before.seconds;
}

// How statuses compare against Kornia's data file, which writes crashes,
// timeouts and OOMs as `fail` and, on a path where it never writes
// `ok-unverified` (its export column), cannot tell that from `ok`.
struct KorniaVerdicts {
  std::set<std::string> unverified_paths;  // paths where that file uses ok-unverified

  std::string comparable(const std::string& status, const std::string& path) const {
    if (status == "crashed" || status == "timeout" || status == "oom" || status == "specialized") {
      return "fail";
    }
    if (status == "missing") return "n/a";
    if (status == "ok-unverified" && !unverified_paths.count(path)) return "ok";
    return status;
  }
};

// The status a verdict compares: what a constant cell was captured with.
std::string verdict_status(const nlohmann::json& record, const std::string& status) {
  if (status != "constant" || !record.is_object()) return status;
  auto captured = record.find("captured_status");
  return captured != record.end() && captured->is_string() ? captured->get<std::string>() : status;
}

void count_agreement(const nlohmann::json& old_case, const nlohmann::json& new_case,
                     const std::set<std::string>& shared_paths, const KorniaVerdicts& kornia,
                     std::map<std::string, PathAgreement>& agreement) {
  static const nlohmann::json kAbsent = {{"status", "n/a"}};
  const auto& old_paths = old_case.at("paths");
  const auto& new_paths = new_case.at("paths");
  for (const auto& path : shared_paths) {
    auto o = old_paths.find(path);
    auto n = new_paths.find(path);
    const auto& old_record = o != old_paths.end() ? *o : kAbsent;
    const auto& new_record = n != new_paths.end() ? *n : kAbsent;
    const std::string was = kornia.comparable(view(old_record).status, path);
    const std::string is = kornia.comparable(view(new_record).status, path);
    if (was == "n/a" || is == "n/a") continue;
    auto& counts = agreement[path];
    ++counts.compared;
    counts.same_status += was == is;
    const std::string was_captured = kornia.comparable(verdict_status(old_record, was), path);
    const std::string is_captured = kornia.comparable(verdict_status(new_record, is), path);
    counts.same_captured_status += was_captured == is_captured;
    counts.same_verdict += supported(was_captured) == supported(is_captured);
  }
}

void diff_case(const std::string& name, const nlohmann::json& old_case,
               const nlohmann::json& new_case, const std::set<std::string>& shared_paths,
               const SourceLinks& old_links, const SourceLinks& new_links,
               const std::optional<KorniaVerdicts>& kornia, std::vector<PathChange>& out) {
  const auto& old_paths = old_case.at("paths");
  const auto& new_paths = new_case.at("paths");
  std::set<std::string> paths;
  for (const auto& [p, r] : old_paths.items()) paths.insert(p);
  for (const auto& [p, r] : new_paths.items()) paths.insert(p);
  static const nlohmann::json kAbsent = {{"status", "n/a"}};
  for (const auto& path : paths) {
    // A path only one run probed is a header change, not a change per case.
    if (!shared_paths.empty() && !shared_paths.count(path)) continue;
    auto o = old_paths.find(path);
    auto n = new_paths.find(path);
    PathView before = view(o != old_paths.end() ? *o : kAbsent);
    PathView after = view(n != new_paths.end() ? *n : kAbsent);
    PathChange change;
    change.case_name = name;
    change.path = path;
    change.old_status = before.status;
    change.new_status = after.status;
    change.old_cause = before.cause;
    change.new_cause = after.cause;
    change.old_breaks = before.breaks;
    change.new_breaks = after.breaks;
    if (!after.frame.empty()) {
      std::tie(change.location, change.location_url) = new_links.locate(after.frame);
    } else if (!before.frame.empty()) {
      std::tie(change.location, change.location_url) = old_links.locate(before.frame);
    }
    std::string was_status = before.status, is_status = after.status;
    if (kornia) {
      was_status = kornia->comparable(before.status, path);
      is_status = kornia->comparable(after.status, path);
    }
    bool was = supported(was_status), is = supported(is_status);
    // Captured either way; one side says that no input reaches the graph: no regression, no fix.
    bool constant_move = (was_status == "constant" && (is || is_status == "constant")) ||
                         (is_status == "constant" && was);
    if (kornia && (was_status == "n/a") != (is_status == "n/a")) {
      change.kind = ChangeKind::kProbedOnOneSide;
    } else if (constant_move) {
      if (was_status == is_status) continue;
      change.kind = ChangeKind::kStatusChanged;
    } else if (was && !is && !kornia && slow_timeout(before, after)) {
      change.kind = ChangeKind::kSlowTimeout;
      change.old_seconds = before.seconds;
      change.new_limit_seconds = after.limit_seconds;
    } else if (was && !is) {
      change.kind = ChangeKind::kRegression;
    } else if (!was && is) {
      change.kind = ChangeKind::kFix;
    } else if (!was) {
      // Kornia's file words its causes its own way: only the status is compared.
      if (was_status == is_status && (kornia || before.cause == after.cause)) continue;
      change.kind = ChangeKind::kCauseChanged;
    } else if (before.breaks.value_or(0) != after.breaks.value_or(0)) {
      change.kind = ChangeKind::kBreaksChanged;
    } else if (was_status != is_status) {
      change.kind = ChangeKind::kStatusChanged;
    } else {
      continue;
    }
    out.push_back(std::move(change));
  }
}

bool is_kornia_layout(const nlohmann::json& snapshot) {
  return snapshot.at("header").contains("layout");
}

std::set<std::string> unverified_paths(const nlohmann::json& snapshot) {
  std::set<std::string> paths;
  for (const auto& entry : snapshot.at("cases")) {
    for (const auto& [path, record] : entry.at("paths").items()) {
      if (record.value("page_status", "") == "ok-unverified") paths.insert(path);
    }
  }
  return paths;
}

// A case probed at least one of the compared paths.
bool probed(const nlohmann::json& entry, const std::set<std::string>& compared_paths) {
  for (const auto& [path, record] : entry.at("paths").items()) {
    if (!compared_paths.empty() && !compared_paths.count(path)) continue;
    const std::string status = record.value("page_status", record.value("status", "n/a"));
    if (status != "n/a" && status != "missing") return true;
  }
  return false;
}

std::string case_name(const nlohmann::json& entry) { return entry.at("name"); }

// A change of a whole case (no path).
PathChange case_change(ChangeKind kind, std::string name, std::string detail) {
  PathChange change;
  change.kind = kind;
  change.case_name = std::move(name);
  change.detail = std::move(detail);
  return change;
}

std::string side_label(const nlohmann::json& snapshot) {
  return is_kornia_layout(snapshot) ? "Kornia" : "capmap";
}

CasePairingSummary summarize_pairing(const nlohmann::json& old_snapshot,
                                     const nlohmann::json& new_snapshot, const CasePairing& pairing,
                                     const std::set<std::string>& compared_paths) {
  CasePairingSummary summary;
  summary.old_label = side_label(old_snapshot);
  summary.new_label = side_label(new_snapshot);
  if (summary.old_label == summary.new_label) {
    summary.old_label = "old";
    summary.new_label = "new";
  }
  summary.old_cases = old_snapshot.at("cases").size();
  summary.new_cases = new_snapshot.at("cases").size();
  summary.pairs = pairing.pairs.size();
  for (const auto& entry : old_snapshot.at("cases")) {
    summary.old_probed += probed(entry, compared_paths);
  }
  for (const auto& entry : new_snapshot.at("cases")) {
    summary.new_probed += probed(entry, compared_paths);
  }
  for (const auto& pair : pairing.pairs) {
    summary.old_probed_paired += probed(*pair.old_case, compared_paths);
    summary.new_probed_paired += probed(*pair.new_case, compared_paths);
  }
  return summary;
}

}  // namespace

namespace {

// A case only one side holds is new or removed only when the other side's run
// would have measured it; otherwise that run simply did not select it.
bool outside(const std::optional<RunSelection>& selection, const nlohmann::json& entry) {
  if (!selection || selects_whole_registry(*selection)) return false;
  return selection_covers(*selection, entry) != true;
}

// Same --only, --tag and shards; a snapshot that does not say counts as whole.
bool same_filters(const std::optional<RunSelection>& a, const std::optional<RunSelection>& b) {
  auto whole = [](const std::optional<RunSelection>& s) {
    return !s || selects_whole_registry(*s);
  };
  if (whole(a) || whole(b)) return whole(a) && whole(b);
  return a->only == b->only && a->tags == b->tags &&
         shards_text(a->shards) == shards_text(b->shards);
}

std::string selection_text(const std::optional<RunSelection>& selection, const char* absent) {
  return selection ? describe_selection(*selection) : absent;
}

}  // namespace

std::size_t SnapshotDiff::count(ChangeKind kind) const {
  return static_cast<std::size_t>(std::count_if(
      changes.begin(), changes.end(), [kind](const PathChange& c) { return c.kind == kind; }));
}

SnapshotDiff diff_snapshots(const nlohmann::json& old_snapshot,
                            const nlohmann::json& new_snapshot) {
  SnapshotDiff diff;
  std::set<std::string> shared_paths;
  auto old_paths = header_paths(old_snapshot);
  auto new_paths = header_paths(new_snapshot);
  for (const auto& p : new_paths) {
    if (old_paths.count(p)) shared_paths.insert(p);
  }
  // Both sides name their paths and none is common (an eager-only run against
  // Kornia's file): there is no path to compare, only the header says so.
  const bool no_common_path = shared_paths.empty() && !old_paths.empty() && !new_paths.empty();
  // Kornia's file knows a few header fields and words causes its own way: only what both sides
  // say, and statuses, are compared.
  const bool kornia_side =
      old_snapshot.at("header").contains("layout") || new_snapshot.at("header").contains("layout");
  diff.header =
      header_changes(old_snapshot.at("header"), new_snapshot.at("header"), no_common_path);
  const auto old_selection = selection_from_json(old_snapshot.at("header"), "old snapshot");
  const auto new_selection = selection_from_json(new_snapshot.at("header"), "new snapshot");
  if (selection_text(old_selection, "(none)") != selection_text(new_selection, "(none)")) {
    diff.header.push_back({"selection", selection_text(old_selection, "(none)"),
                           selection_text(new_selection, "(none)")});
  }
  if (!same_filters(old_selection, new_selection)) {
    diff.selection_note = fmt::format(
        "the two sides cover different selections (old: {}; new: {}); a case only one side "
        "selected is listed as outside the other side's selection, not as new or removed",
        selection_text(old_selection, "not recorded"),
        selection_text(new_selection, "not recorded"));
  }

  const SourceLinks old_links(old_snapshot), new_links(new_snapshot);
  for (const auto& entry : new_snapshot.at("cases")) {
    auto paths = entry.find("paths");
    if (paths == entry.end() || !paths->is_object()) continue;
    for (const auto& [p, record] : paths->items()) {
      ++diff.new_cells;
      auto carried = record.find("carried");
      if (carried != record.end() && *carried == true) ++diff.new_carried;
    }
  }
  // Two snapshots pair by name; Kornia's file names its cases otherwise.
  const CasePairing pairing = kornia_side ? pair_cases_by_identity(old_snapshot, new_snapshot)
                                          : pair_cases_by_name(old_snapshot, new_snapshot);
  std::optional<KorniaVerdicts> verdicts;
  if (kornia_side) {
    verdicts.emplace();
    auto old_unverified = unverified_paths(old_snapshot);
    auto new_unverified = unverified_paths(new_snapshot);
    // A path compares ok-unverified apart only where each Kornia-layout side can say it.
    std::set<std::string> all_paths = old_paths;
    all_paths.insert(new_paths.begin(), new_paths.end());
    for (const auto& path : all_paths) {
      bool old_can = !is_kornia_layout(old_snapshot) || old_unverified.count(path);
      bool new_can = !is_kornia_layout(new_snapshot) || new_unverified.count(path);
      if (old_can && new_can) verdicts->unverified_paths.insert(path);
    }
    diff.pairing = summarize_pairing(old_snapshot, new_snapshot, pairing, shared_paths);
  }
  const std::string old_label = diff.pairing ? diff.pairing->old_label : "";
  const std::string new_label = diff.pairing ? diff.pairing->new_label : "";
  // Why a case the other side would have measured has no partner there.
  auto unpaired_detail = [&](ChangeKind kind, UnpairedReason reason,
                             const std::string& other) -> std::string {
    if (!kornia_side || (kind != ChangeKind::kRemovedCase && kind != ChangeKind::kNewCase)) {
      return "";
    }
    if (reason == UnpairedReason::kNoMatchingVariant) {
      return fmt::format("{} has this operator, but no case whose variant agrees", other);
    }
    return fmt::format("{} has no case of this package and operator", other);
  };
  for (const auto& only : pairing.only_old) {
    ChangeKind kind = outside(new_selection, *only.entry) ? ChangeKind::kOutsideNewSelection
                                                          : ChangeKind::kRemovedCase;
    diff.changes.push_back(
        case_change(kind, case_name(*only.entry), unpaired_detail(kind, only.reason, new_label)));
  }
  for (const auto& only : pairing.only_new) {
    ChangeKind kind = outside(old_selection, *only.entry) ? ChangeKind::kOutsideOldSelection
                                                          : ChangeKind::kNewCase;
    diff.changes.push_back(
        case_change(kind, case_name(*only.entry), unpaired_detail(kind, only.reason, old_label)));
  }
  for (const auto& pair : pairing.pairs) {
    const std::string name = case_name(*pair.new_case);
    const std::string old_name = case_name(*pair.old_case);
    const std::size_t first = diff.changes.size();
    if (pair.rule == PairRule::kOnlyCase) {
      auto old_variant = case_identity(*pair.old_case, "").variant;
      auto new_variant = case_identity(*pair.new_case, "").variant;
      if (!same_variant(old_variant, new_variant)) {
        diff.changes.push_back(case_change(
            ChangeKind::kConfigDiffers, name,
            fmt::format("variant {} ({}) vs {} ({}); the only case of its operator on each side",
                        variant_text(old_variant), old_label, variant_text(new_variant),
                        new_label)));
      }
    }
    if (!no_common_path) {
      diff_case(name, *pair.old_case, *pair.new_case, shared_paths, old_links, new_links, verdicts,
                diff.changes);
      if (verdicts && diff.pairing) {
        count_agreement(*pair.old_case, *pair.new_case, shared_paths, *verdicts,
                        diff.pairing->agreement);
      }
    }
    if (old_name != name) {
      for (std::size_t i = first; i < diff.changes.size(); ++i) diff.changes[i].old_name = old_name;
    }
  }
  // By case name, then path (diff_case adds a case's paths in order).
  std::stable_sort(diff.changes.begin(), diff.changes.end(),
                   [](const PathChange& a, const PathChange& b) {
                     return std::tie(a.case_name, a.old_name) < std::tie(b.case_name, b.old_name);
                   });
  return diff;
}

}  // namespace capmap

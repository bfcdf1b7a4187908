#include "diff/snapshot_diff.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "render/url_templates.h"
#include "run/run_selection.h"

namespace capmap {
namespace {

bool supported(const std::string& page_status) {
  return page_status == "ok" || page_status == "ok-breaks" || page_status == "ok-unverified";
}

// Objects become dotted keys; arrays and scalars are compared as a whole.
void flatten(const nlohmann::json& value, const std::string& prefix,
             std::map<std::string, std::string>& out) {
  if (value.is_object()) {
    for (const auto& [key, child] : value.items()) {
      flatten(child, prefix.empty() ? key : prefix + "." + key, out);
    }
    return;
  }
  out[prefix] = value.is_string() ? value.get<std::string>() : value.dump();
}

struct PathView {
  std::string status;
  std::string cause;
  std::optional<long long> breaks;
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
  auto frames = record.find("frames");
  if (frames != record.end() && frames->is_array() && !frames->empty() &&
      frames->back().is_string()) {
    v.frame = frames->back().get<std::string>();
  }
  return v;
}

std::map<std::string, const nlohmann::json*> index_cases(const nlohmann::json& snapshot) {
  std::map<std::string, const nlohmann::json*> cases;
  for (const auto& entry : snapshot.at("cases")) cases.emplace(entry.at("name"), &entry);
  return cases;
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

void diff_case(const std::string& name, const nlohmann::json& old_case,
               const nlohmann::json& new_case, const std::set<std::string>& shared_paths,
               const SourceLinks& old_links, const SourceLinks& new_links,
               std::vector<PathChange>& out) {
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
    PathChange change{ChangeKind::kRegression,
                      name,
                      path,
                      before.status,
                      after.status,
                      before.cause,
                      after.cause,
                      before.breaks,
                      after.breaks,
                      "",
                      ""};
    if (!after.frame.empty()) {
      std::tie(change.location, change.location_url) = new_links.locate(after.frame);
    } else if (!before.frame.empty()) {
      std::tie(change.location, change.location_url) = old_links.locate(before.frame);
    }
    bool was = supported(before.status), is = supported(after.status);
    if (was && !is) {
      change.kind = ChangeKind::kRegression;
    } else if (!was && is) {
      change.kind = ChangeKind::kFix;
    } else if (!was) {
      if (before.status == after.status && before.cause == after.cause) continue;
      change.kind = ChangeKind::kCauseChanged;
    } else if (before.breaks.value_or(0) != after.breaks.value_or(0)) {
      change.kind = ChangeKind::kBreaksChanged;
    } else if (before.status != after.status) {
      change.kind = ChangeKind::kStatusChanged;
    } else {
      continue;
    }
    out.push_back(std::move(change));
  }
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
  std::map<std::string, std::string> old_header, new_header;
  flatten(old_snapshot.at("header"), "", old_header);
  flatten(new_snapshot.at("header"), "", new_header);
  std::set<std::string> keys;
  for (const auto& [k, v] : old_header) keys.insert(k);
  for (const auto& [k, v] : new_header) keys.insert(k);
  // Kornia's file knows a few header fields and words causes its own way: only
  // what both sides say, and statuses, are compared.
  const bool kornia_side =
      old_snapshot.at("header").contains("layout") || new_snapshot.at("header").contains("layout");
  for (const auto& key : keys) {
    if (key == "generated_at") continue;  // differs on every merge
    // The selection is one line below, in the words the pages use.
    if (key == "selection" || key.starts_with("selection.")) continue;
    auto o = old_header.find(key);
    auto n = new_header.find(key);
    if (kornia_side && (o == old_header.end() || n == new_header.end())) continue;
    // That file has no eager column: its paths differ from a run's unless no path is shared.
    if (kornia_side && key == "paths" && !no_common_path) continue;
    std::string before = o != old_header.end() ? o->second : "(none)";
    std::string after = n != new_header.end() ? n->second : "(none)";
    if (before != after) diff.header.push_back({key, before, after});
  }
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
  auto old_cases = index_cases(old_snapshot);
  auto new_cases = index_cases(new_snapshot);
  auto o = old_cases.begin();
  auto n = new_cases.begin();
  while (o != old_cases.end() || n != new_cases.end()) {
    if (n == new_cases.end() || (o != old_cases.end() && o->first < n->first)) {
      ChangeKind kind = outside(new_selection, *o->second) ? ChangeKind::kOutsideNewSelection
                                                           : ChangeKind::kRemovedCase;
      diff.changes.push_back({kind, o->first, "", "", "", "", "", {}, {}, "", ""});
      ++o;
    } else if (o == old_cases.end() || n->first < o->first) {
      ChangeKind kind = outside(old_selection, *n->second) ? ChangeKind::kOutsideOldSelection
                                                           : ChangeKind::kNewCase;
      diff.changes.push_back({kind, n->first, "", "", "", "", "", {}, {}, "", ""});
      ++n;
    } else {
      if (!no_common_path) {
        diff_case(o->first, *o->second, *n->second, shared_paths, old_links, new_links,
                  diff.changes);
      }
      ++o;
      ++n;
    }
  }
  if (kornia_side) {
    std::erase_if(diff.changes, [](const PathChange& c) {
      return c.kind == ChangeKind::kCauseChanged && c.old_status == c.new_status;
    });
  }
  return diff;
}

}  // namespace capmap

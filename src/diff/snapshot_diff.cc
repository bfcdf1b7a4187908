#include "diff/snapshot_diff.h"

#include <algorithm>
#include <map>
#include <set>

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
};

PathView view(const nlohmann::json& record) {
  PathView v;
  v.status = record.value("page_status", record.value("status", std::string("n/a")));
  auto cause = record.find("cause");
  if (cause != record.end() && cause->is_string()) v.cause = cause->get<std::string>();
  auto breaks = record.find("graph_breaks");
  if (breaks != record.end() && breaks->is_number_integer()) v.breaks = breaks->get<long long>();
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
                      after.breaks};
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

std::size_t SnapshotDiff::count(ChangeKind kind) const {
  return static_cast<std::size_t>(std::count_if(
      changes.begin(), changes.end(), [kind](const PathChange& c) { return c.kind == kind; }));
}

SnapshotDiff diff_snapshots(const nlohmann::json& old_snapshot,
                            const nlohmann::json& new_snapshot) {
  SnapshotDiff diff;
  std::map<std::string, std::string> old_header, new_header;
  flatten(old_snapshot.at("header"), "", old_header);
  flatten(new_snapshot.at("header"), "", new_header);
  std::set<std::string> keys;
  for (const auto& [k, v] : old_header) keys.insert(k);
  for (const auto& [k, v] : new_header) keys.insert(k);
  for (const auto& key : keys) {
    if (key == "generated_at") continue;  // differs on every merge
    auto o = old_header.find(key);
    auto n = new_header.find(key);
    std::string before = o != old_header.end() ? o->second : "(none)";
    std::string after = n != new_header.end() ? n->second : "(none)";
    if (before != after) diff.header.push_back({key, before, after});
  }

  std::set<std::string> shared_paths;
  auto old_paths = header_paths(old_snapshot);
  for (const auto& p : header_paths(new_snapshot)) {
    if (old_paths.count(p)) shared_paths.insert(p);
  }
  auto old_cases = index_cases(old_snapshot);
  auto new_cases = index_cases(new_snapshot);
  auto o = old_cases.begin();
  auto n = new_cases.begin();
  while (o != old_cases.end() || n != new_cases.end()) {
    if (n == new_cases.end() || (o != old_cases.end() && o->first < n->first)) {
      diff.changes.push_back({ChangeKind::kRemovedCase, o->first, "", "", "", "", "", {}, {}});
      ++o;
    } else if (o == old_cases.end() || n->first < o->first) {
      diff.changes.push_back({ChangeKind::kNewCase, n->first, "", "", "", "", "", {}, {}});
      ++n;
    } else {
      diff_case(o->first, *o->second, *n->second, shared_paths, diff.changes);
      ++o;
      ++n;
    }
  }
  return diff;
}

}  // namespace capmap

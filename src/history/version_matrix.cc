#include "history/version_matrix.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "common/user_error.h"
#include "diff/case_pairing.h"
#include "merge/page_status.h"
#include "render/public_name.h"

namespace capmap {
namespace {

struct CaseFacts {
  std::string operator_name, group, ref, public_ref;
};

std::string library_name(const VersionColumn& column) {
  const auto& header = column.snapshot.at("header");
  auto library = header.find("library");
  if (library != header.end() && library->is_object()) return library->value("name", "");
  return "";
}

// Display order: the axis by torch version; Kornia's file right after the
// axis column of its own torch version (else where its version falls).
std::vector<VersionColumn> ordered(std::vector<VersionColumn> columns) {
  std::stable_sort(columns.begin(), columns.end(), [](const auto& a, const auto& b) {
    if (a.torch != b.torch) return torch_version_less(a.torch, b.torch);
    return !a.reference && b.reference;
  });
  return columns;
}

std::string change_cause(const VersionCell& before, const VersionCell& after) {
  const bool was = is_supported(before.status), is = is_supported(after.status);
  if (was && !is)
    return fmt::format("{}: {}", after.status, after.cause.empty() ? "-" : after.cause);
  if (!was && is)
    return fmt::format("fixed: {}", before.cause.empty() ? before.status : before.cause);
  return fmt::format("{} → {}", before.status, after.status);
}

}  // namespace

const char* change_kind_name(VersionChange kind) {
  switch (kind) {
    case VersionChange::kRegression:
      return "regression";
    case VersionChange::kFixed:
      return "fixed";
    case VersionChange::kChanged:
      return "changed";
    case VersionChange::kSame:
      break;
  }
  return "same";
}

std::string support_summary(
    const std::vector<std::pair<std::string, std::string>>& versions_and_statuses) {
  if (versions_and_statuses.empty()) return "";
  std::vector<std::pair<std::string, bool>> seen;
  for (const auto& [version, status] : versions_and_statuses) {
    seen.emplace_back(version, is_supported(status));
  }
  const bool all = std::all_of(seen.begin(), seen.end(), [](const auto& s) { return s.second; });
  const bool none = std::none_of(seen.begin(), seen.end(), [](const auto& s) { return s.second; });
  if (seen.size() == 1) {
    return fmt::format("{} in torch {} (the only version surveyed)", all ? "works" : "fails",
                       seen.front().first);
  }
  if (all)
    return fmt::format("works in every version surveyed ({}–{})", seen.front().first,
                       seen.back().first);
  if (none)
    return fmt::format("fails in every version surveyed ({}–{})", seen.front().first,
                       seen.back().first);
  std::string phrase;
  if (seen.front().second) phrase = fmt::format("works in torch {}", seen.front().first);
  for (std::size_t i = 1; i < seen.size(); ++i) {
    if (seen[i].second == seen[i - 1].second) continue;
    const std::string& version = seen[i].first;
    if (!seen[i].second) {
      phrase += fmt::format("{}broke in {}", phrase.empty() ? "" : ", ", version);
    } else if (phrase.empty()) {
      phrase = fmt::format("works since torch {}", version);
    } else {
      phrase += fmt::format(", works again in {}", version);
    }
  }
  return phrase;
}

namespace {

// The capmap columns (one per torch version, one library); throws on a second column of one
// torch or another library.
std::vector<std::size_t> version_axis(const std::vector<VersionColumn>& columns) {
  std::vector<std::size_t> axis;
  for (std::size_t i = 0; i < columns.size(); ++i) {
    const auto& column = columns[i];
    if (column.reference) continue;
    for (std::size_t j : axis) {
      if (columns[j].torch == column.torch) {
        throw UserError(fmt::format("{} and {}: both are torch {}; give one snapshot per version",
                                    columns[j].file, column.file, column.torch));
      }
      if (library_name(columns[j]) != library_name(column)) {
        throw UserError(fmt::format("{} surveys {}, {} surveys {}: one library per matrix",
                                    columns[j].file, library_name(columns[j]), column.file,
                                    library_name(column)));
      }
    }
    axis.push_back(i);
  }
  if (axis.empty()) {
    throw UserError(
        "history: give at least one capmap snapshot (Kornia's file is only shown beside them)");
  }
  return axis;
}

// Kornia's file speaks of its cases by other names: pair them with the capmap column of the
// same torch (else the newest) and file them under capmap's names.
void pair_reference_columns(VersionMatrix& matrix, const std::vector<std::size_t>& axis) {
  for (auto& column : matrix.columns) {
    if (!column.reference) continue;
    const VersionColumn* partner = &matrix.columns[axis.back()];
    for (std::size_t j : axis) {
      if (matrix.columns[j].torch == column.torch) partner = &matrix.columns[j];
    }
    const auto own = cells_by_name(column.snapshot);
    const CasePairing pairing = pair_cases_by_identity(partner->snapshot, column.snapshot);
    for (const auto& pair : pairing.pairs) {
      auto found = own.find(pair.new_case->value("name", ""));
      if (found != own.end()) column.cells[pair.old_case->value("name", "")] = found->second;
    }
    matrix.reference_pairs = pairing.pairs.size();
    matrix.reference_unpaired = pairing.only_new.size();
  }
}

// Case facts from the newest column that has the case; paths in first-seen order; the library's
// package folders, for the public names.
std::map<std::string, CaseFacts> case_facts(VersionMatrix& matrix,
                                            const std::vector<std::size_t>& axis,
                                            std::set<std::string>& packages) {
  std::map<std::string, CaseFacts> facts;
  for (auto it = axis.rbegin(); it != axis.rend(); ++it) {
    const auto& column = matrix.columns[*it];
    for (const auto& path : column.snapshot.at("header").value("paths", nlohmann::json::array())) {
      const std::string name = path.is_string() ? path.get<std::string>() : "";
      if (name.empty() || name == "eager") continue;
      if (std::find(matrix.paths.begin(), matrix.paths.end(), name) == matrix.paths.end()) {
        matrix.paths.push_back(name);
      }
    }
    for (const auto& entry : column.snapshot.at("cases")) {
      const std::string name = entry.value("name", "");
      if (facts.contains(name)) continue;
      facts[name] = {entry.value("operator", name), entry.value("group", ""),
                     entry.value("ref", ""), entry.value("public_ref", "")};
      if (auto files = entry.find("files"); files != entry.end() && files->is_object()) {
        for (const auto& [file, hash] : files->items()) add_package_dirs(file, packages);
      }
    }
  }
  return facts;
}

// One case × path across the columns, and the worst change between consecutive versions.
std::optional<MatrixRow> matrix_row(const VersionMatrix& matrix, const std::string& name,
                                    const CaseFacts& fact, const std::string& public_name,
                                    const std::string& path) {
  MatrixRow row;
  row.name = name;
  row.operator_name = fact.operator_name;
  row.group = fact.group;
  row.public_name = public_name;
  row.path = path;
  std::vector<std::pair<std::string, std::string>> sequence;
  std::optional<VersionCell> previous;
  for (const auto& column : matrix.columns) {
    std::optional<VersionCell> cell;
    if (auto found = column.cells.find(name); found != column.cells.end()) {
      if (auto at = found->second.find(path); at != found->second.end()) cell = at->second;
    }
    row.cells.push_back(cell);
    if (column.reference || !cell) continue;
    sequence.emplace_back(column.torch, cell->status);
    if (previous) {
      const bool was = is_supported(previous->status), is = is_supported(cell->status);
      VersionChange kind = was && !is                         ? VersionChange::kRegression
                           : !was && is                       ? VersionChange::kFixed
                           : previous->status != cell->status ? VersionChange::kChanged
                                                              : VersionChange::kSame;
      row.kind = std::min(row.kind, kind);
    }
    previous = cell;
  }
  if (sequence.empty()) return std::nullopt;  // the path is in no column that has this case
  row.summary = support_summary(sequence);
  return row;
}

// Consecutive versions of the axis: how many cells changed, and why.
VersionStep version_step(const VersionMatrix& matrix, std::size_t a, std::size_t b) {
  VersionStep step;
  step.from = matrix.columns[a].torch;
  step.to = matrix.columns[b].torch;
  std::map<std::string, std::size_t> causes;
  for (const auto& row : matrix.rows) {
    if (!row.cells[a] || !row.cells[b]) continue;
    ++step.compared;
    const auto& before = *row.cells[a];
    const auto& after = *row.cells[b];
    if (before.status == after.status) continue;
    ++step.changed;
    if (is_supported(before.status) && !is_supported(after.status)) ++step.regressions;
    if (!is_supported(before.status) && is_supported(after.status)) ++step.fixes;
    ++causes[change_cause(before, after)];
  }
  step.top_causes.assign(causes.begin(), causes.end());
  std::stable_sort(step.top_causes.begin(), step.top_causes.end(),
                   [](const auto& x, const auto& y) { return x.second > y.second; });
  if (step.top_causes.size() > 5) step.top_causes.resize(5);
  return step;
}

}  // namespace

VersionMatrix build_version_matrix(std::vector<VersionColumn> columns) {
  VersionMatrix matrix;
  matrix.columns = ordered(std::move(columns));
  const std::vector<std::size_t> axis = version_axis(matrix.columns);
  matrix.library = library_name(matrix.columns[axis.front()]);
  pair_reference_columns(matrix, axis);
  std::set<std::string> packages;
  const std::map<std::string, CaseFacts> facts = case_facts(matrix, axis, packages);
  for (const auto& [name, fact] : facts) {
    const PublicName public_name =
        case_public_name(fact.ref, fact.public_ref, fact.operator_name, packages);
    for (const auto& path : matrix.paths) {
      if (auto row = matrix_row(matrix, name, fact, public_name.qualified, path)) {
        matrix.rows.push_back(std::move(*row));
      }
    }
  }
  std::stable_sort(matrix.rows.begin(), matrix.rows.end(),
                   [](const MatrixRow& a, const MatrixRow& b) { return a.kind < b.kind; });
  for (std::size_t k = 1; k < axis.size(); ++k) {
    matrix.steps.push_back(version_step(matrix, axis[k - 1], axis[k]));
  }
  return matrix;
}

}  // namespace capmap

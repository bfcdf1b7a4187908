#include "cli/run_cases.h"

#include <cstdio>
#include <optional>

#include "common/user_error.h"
#include "merge/merge.h"
#include "selection/change_selection.h"
#include "selection/function_changes.h"

namespace capmap {
namespace {

// The snapshot of the newest run a store holds, complete or not: what a change
// selection compares with when no baseline is given. Null without one.
std::optional<nlohmann::json> previous_snapshot(const std::filesystem::path& store) {
  std::error_code ec;
  if (!std::filesystem::exists(store, ec)) return std::nullopt;
  MergeOptions merge;
  merge.stores = {store};
  try {
    return build_snapshot(merge).snapshot;
  } catch (const UserError&) {
    return std::nullopt;  // no run yet
  }
}

}  // namespace

RunCases select_run_cases(const nlohmann::json& inventory, const RunCommandOptions& options,
                          RunSetup& setup, const Baseline* baseline,
                          const std::vector<std::string>& paths) {
  // The bundled default surveys its quick tier unless told otherwise.
  use_default_tier(inventory, !options.registries.empty(), options.all, setup.filter);
  CaseFilter unsharded = setup.filter;
  unsharded.shard = {};
  RunCases cases;
  cases.asked = select_cases(inventory, unsharded);
  if (baseline) cases.baseline_durations = snapshot_durations(baseline->snapshot());
  cases.selected =
      shard_cases(cases.asked, setup.filter.shard, setup.shard_by, cases.baseline_durations, paths);
  cases.shard_case_count = cases.selected.size();
  return cases;
}

void narrow_to_change(RunCases& cases, const RunSetup& setup, const Baseline* baseline,
                      const nlohmann::json& this_run, ChangedFiles changed_files,
                      const std::vector<std::string>& paths) {
  std::optional<nlohmann::json> previous;
  if (!baseline) previous = previous_snapshot(setup.store);
  const nlohmann::json* known = baseline ? &baseline->snapshot() : previous ? &*previous : nullptr;
  const std::string library = this_run.at("library").value("name", "");
  add_files_changed_by_hash(setup.change_request, known, setup.supervisor.python, library,
                            changed_files);
  auto change = select_changed_cases(cases.asked, known, this_run, changed_files.code, paths,
                                     changed_files.lines_moved);
  narrow_to_functions(change, setup.change_request,
                      {setup.supervisor.python, setup.supervisor.registries,
                       setup.supervisor.settings, setup.supervisor.jobs},
                      changed_files.code);
  std::fprintf(stderr, "capmap: %s\n", describe_change_selection(change).c_str());
  cases.selected = shard_cases(change.to_run, setup.filter.shard, setup.shard_by,
                               cases.baseline_durations, paths);
  if (!baseline) cases.asked = change.to_run;
}

}  // namespace capmap

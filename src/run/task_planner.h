#pragma once
// Resume: decides what a run still has to do, given what the store holds
// under this run key. A (case, path) with a record is done; one dispatched
// before without a record is run again, unless it was dispatched twice
// already: then the supervisor died while it ran, twice, and it is recorded
// as crashed instead. Cases marked skip get a `skipped` record, never a task.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "run/task.h"
#include "store/result_store.h"

namespace capmap {

inline constexpr int kMaxDispatchesWithoutRecord = 2;

struct TaskPlan {
  std::vector<Task> tasks;
  int already_recorded = 0;  // (case, path) pairs skipped because they have a record
  int skipped_written = 0;   // skipped records written for skip cases
  int crashed_written = 0;   // crashed records written after repeated dispatches
};

// Writes the skipped and crashed records it decides on. With retry_crashed,
// paths whose record is `crashed` are run again (and their dispatch count reset).
TaskPlan plan_tasks(ResultStore& store, const std::string& run_key,
                    const std::vector<nlohmann::json>& cases, const std::vector<std::string>& paths,
                    bool retry_crashed);

}  // namespace capmap

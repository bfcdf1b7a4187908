#include "run/task_planner.h"

#include <fmt/format.h>

namespace capmap {

TaskPlan plan_tasks(ResultStore& store, const std::string& run_key,
                    const std::vector<nlohmann::json>& cases, const std::vector<std::string>& paths,
                    bool retry_crashed) {
  TaskPlan plan;
  auto records = store.records(run_key);
  auto attempts = store.dispatch_attempts(run_key);
  for (const auto& c : cases) {
    std::string name = c.at("name").get<std::string>();
    auto skip = c.find("skip");
    bool is_skip = skip != c.end() && skip->is_string();
    Task task{name, {}};
    for (const auto& path : paths) {
      auto found = records.find({name, path});
      if (found != records.end()) {
        bool retry = retry_crashed && found->second.status == "crashed" && !is_skip;
        if (!retry) {
          ++plan.already_recorded;
          continue;
        }
        store.reset_dispatches(run_key, name, path);
        task.paths.push_back(path);
        continue;
      }
      if (is_skip) {
        store.put_record(
            run_key, name, path,
            {{"status", "skipped"}, {"seconds", 0}, {"message", skip->get<std::string>()}});
        ++plan.skipped_written;
        continue;
      }
      auto tried = attempts.find({name, path});
      int count = tried == attempts.end() ? 0 : tried->second;
      if (count >= kMaxDispatchesWithoutRecord) {
        store.put_record(
            run_key, name, path,
            {{"status", "crashed"},
             {"seconds", 0},
             {"message", fmt::format("dispatched {} times without a record: capmap itself was "
                                     "killed each time this task ran",
                                     count)}});
        ++plan.crashed_written;
        continue;
      }
      task.paths.push_back(path);
    }
    if (!task.paths.empty()) plan.tasks.push_back(std::move(task));
  }
  return plan;
}

}  // namespace capmap

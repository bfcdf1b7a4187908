#include "run/scheduler.h"

namespace capmap {

std::optional<double> expected_seconds(const Task& task, const DurationTable& durations) {
  double total = 0;
  for (const auto& path : task.paths) {
    auto it = durations.find({task.case_name, path});
    if (it == durations.end()) return std::nullopt;
    total += it->second;
  }
  return total;
}

bool Scheduler::Order::operator()(const Entry& a, const Entry& b) const {
  bool a_unknown = !a.expected.has_value();
  bool b_unknown = !b.expected.has_value();
  if (a_unknown != b_unknown) return a_unknown;
  if (!a_unknown && *a.expected != *b.expected) return *a.expected > *b.expected;
  // Ties keep the order tasks were queued in (registry order).
  return a.sequence < b.sequence;
}

void Scheduler::push(Task task, std::optional<double> expected) {
  queue_.insert(Entry{std::move(task), expected, next_sequence_++});
}

std::optional<Task> Scheduler::pop() {
  if (queue_.empty()) return std::nullopt;
  auto node = queue_.extract(queue_.begin());
  return std::move(node.value().task);
}

size_t Scheduler::count_if(const std::function<bool(const Task&)>& predicate) const {
  size_t count = 0;
  for (const auto& entry : queue_) {
    if (predicate(entry.task)) ++count;
  }
  return count;
}

}  // namespace capmap

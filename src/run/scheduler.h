#pragma once
// Scheduler: the one queue all workers draw from. Longest expected first, so
// the slow cases start early and the run does not end waiting on one of
// them; tasks never measured before go first of all, since they may be slow.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "run/task.h"

namespace capmap {

// (case, path) → seconds of an earlier record.
using DurationTable = std::map<std::pair<std::string, std::string>, double>;

// Sum of the known durations of the task's paths; nothing when any is unknown.
std::optional<double> expected_seconds(const Task& task, const DurationTable& durations);

class Scheduler {
 public:
  void push(Task task, std::optional<double> expected);
  std::optional<Task> pop();
  bool empty() const { return queue_.empty(); }
  size_t size() const { return queue_.size(); }
  size_t count_if(const std::function<bool(const Task&)>& predicate) const;

 private:
  struct Entry {
    Task task;
    std::optional<double> expected;
    std::uint64_t sequence;
  };
  struct Order {
    bool operator()(const Entry& a, const Entry& b) const;
  };
  std::set<Entry, Order> queue_;
  std::uint64_t next_sequence_ = 0;
};

}  // namespace capmap

#include "run/known_durations.h"

#include <algorithm>

namespace capmap {

DurationTable snapshot_durations(const nlohmann::json& snapshot) {
  DurationTable found;
  auto cases = snapshot.find("cases");
  if (cases == snapshot.end() || !cases->is_array()) return found;
  for (const auto& c : *cases) {
    auto paths = c.find("paths");
    if (!c.is_object() || paths == c.end() || !paths->is_object()) continue;
    const std::string name = c.value("name", "");
    for (const auto& [path, record] : paths->items()) {
      auto seconds = record.is_object() ? record.find("seconds") : record.end();
      if (record.is_object() && seconds != record.end() && seconds->is_number()) {
        found[{name, path}] = seconds->get<double>();
      }
    }
  }
  return found;
}

DurationTable overlay_durations(DurationTable earlier, const DurationTable& later) {
  for (const auto& [key, seconds] : later) earlier[key] = seconds;
  return earlier;
}

std::optional<double> case_seconds(const std::string& case_name,
                                   const std::vector<std::string>& paths,
                                   const DurationTable& durations) {
  double total = 0;
  for (const auto& path : paths) {
    auto it = durations.find({case_name, path});
    if (it == durations.end()) return std::nullopt;
    total += it->second;
  }
  return total;
}

std::vector<double> expected_case_seconds(const std::vector<nlohmann::json>& cases,
                                          const std::vector<std::string>& paths,
                                          const DurationTable& durations, std::size_t* unknown) {
  std::vector<std::optional<double>> known;
  std::vector<double> figures;
  for (const auto& c : cases) {
    known.push_back(case_seconds(c.value("name", ""), paths, durations));
    if (known.back()) figures.push_back(*known.back());
  }
  double median = 1.0;
  if (!figures.empty()) {
    auto middle = figures.begin() + static_cast<std::ptrdiff_t>(figures.size() / 2);
    std::nth_element(figures.begin(), middle, figures.end());
    median = *middle;
  }
  std::vector<double> out;
  std::size_t missing = 0;
  for (const auto& k : known) {
    out.push_back(k.value_or(median));
    if (!k) ++missing;
  }
  if (unknown) *unknown = missing;
  return out;
}

}  // namespace capmap

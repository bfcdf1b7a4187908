#include "run/change_replay.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>

#include "common/user_error.h"
#include "run/longest_first.h"
#include "run/predicted_wall.h"
#include "run/shard_split.h"
#include "selection/change_selection.h"

namespace capmap {
namespace {

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    std::size_t end = text.find(sep, start);
    out.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) return out;
    start = end + 1;
  }
}

}  // namespace

std::vector<ReplayedChange> read_change_stream(const std::string& file) {
  std::ifstream in(file);
  if (!in) throw UserError(fmt::format("{}: cannot read the change stream", file));
  std::string line;
  std::size_t number = 0;
  std::optional<std::size_t> files_column;
  std::vector<ReplayedChange> changes;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line.starts_with("#")) continue;
    auto columns = split(line, '\t');
    if (!files_column) {
      auto it = std::find(columns.begin(), columns.end(), "files");
      if (it == columns.end()) {
        throw UserError(
            fmt::format("{}:{}: the header names no 'files' column (a TSV: id, ..., files, ...)",
                        file, number));
      }
      files_column = static_cast<std::size_t>(it - columns.begin());
      continue;
    }
    if (columns.size() <= *files_column) {
      throw UserError(fmt::format("{}:{}: {} columns, the 'files' column is number {}", file,
                                  number, columns.size(), *files_column + 1));
    }
    ReplayedChange change{columns[0], {}};
    for (auto& f : split(columns[*files_column], ',')) {
      if (!f.empty()) change.files.push_back(f);
    }
    changes.push_back(std::move(change));
  }
  if (!files_column) throw UserError(fmt::format("{}: no header line", file));
  return changes;
}

std::vector<ReplayPrediction> replay_changes(const std::vector<ReplayedChange>& changes,
                                             const std::vector<nlohmann::json>& cases,
                                             const nlohmann::json& baseline,
                                             const nlohmann::json& run,
                                             const std::vector<std::string>& paths, int jobs,
                                             int matrix) {
  const DurationTable durations = snapshot_durations(baseline);
  std::vector<ReplayPrediction> out;
  for (const auto& change : changes) {
    auto selection = select_changed_cases(cases, &baseline, run, change.files, paths);
    auto chosen = dispatched_cases(selection.to_run);
    ReplayPrediction p;
    p.id = change.id;
    p.files = change.files.size();
    p.cases = chosen.size();
    auto seconds = expected_case_seconds(chosen, paths, durations, &p.unknown);
    for (double s : seconds) p.busy_s += s;
    p.wall_s = pack_longest_first(seconds, jobs).wall();
    p.matrix_wall_s = p.wall_s;
    if (matrix > 1) {
      auto walls =
          shard_walls(selection.to_run, matrix, ShardBy::kTime, durations, durations, paths, jobs);
      p.matrix_wall_s = *std::max_element(walls.begin(), walls.end());
    }
    out.push_back(std::move(p));
  }
  return out;
}

std::string replay_as_tsv(const std::vector<ReplayPrediction>& predictions, int jobs, int matrix) {
  std::string out =
      fmt::format("change\tfiles\tcases\tunknown\tbusy_s\twall_s_{}_jobs\twall_s_{}x{}_jobs\n",
                  jobs, matrix, jobs);
  for (const auto& p : predictions) {
    out += fmt::format("{}\t{}\t{}\t{}\t{:.1f}\t{:.1f}\t{:.1f}\n", p.id, p.files, p.cases,
                       p.unknown, p.busy_s, p.wall_s, p.matrix_wall_s);
  }
  return out;
}

}  // namespace capmap

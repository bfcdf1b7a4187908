#pragma once
// A stream of changes replayed against a baseline (`capmap list --changes-from
// FILE`): for each change, the cases `capmap run --changed` would run and the
// wall it should take, on one job and split into a matrix of shard jobs. One
// registry load serves every change, so a year of commits replays in seconds.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "run/known_durations.h"

namespace capmap {

struct ReplayedChange {
  std::string id;
  std::vector<std::string> files;
};

struct ReplayPrediction {
  std::string id;
  std::size_t files = 0, cases = 0, unknown = 0;
  double wall_s = 0, busy_s = 0;
  double matrix_wall_s = 0;  // the slowest of the matrix's shard jobs (shards split by time)
};

// Reads a TSV with a header line: the first column names the change, the column
// `files` lists its files, comma-separated ('#' lines are comments). Throws
// UserError naming FILE and the line when it has no such column or a row is short.
std::vector<ReplayedChange> read_change_stream(const std::string& file);

// `cases` is the inventory, `baseline` the snapshot a PR run compares with, `run`
// {"library","versions","settings"}; `jobs` per job, `matrix` shard jobs.
std::vector<ReplayPrediction> replay_changes(const std::vector<ReplayedChange>& changes,
                                             const std::vector<nlohmann::json>& cases,
                                             const nlohmann::json& baseline,
                                             const nlohmann::json& run,
                                             const std::vector<std::string>& paths, int jobs,
                                             int matrix);

// The predictions as TSV (a header line, then one line per change).
std::string replay_as_tsv(const std::vector<ReplayPrediction>& predictions, int jobs, int matrix);

}  // namespace capmap

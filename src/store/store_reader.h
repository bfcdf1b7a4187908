#pragma once
// Read-only view of a results store (the SQLite file `capmap run` writes), as
// merge and `capmap causes` read it: plain structs, no SQL outside the store.
// It never writes, so a refused merge cannot damage a store.
#include <filesystem>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "store/repro_table.h"
#include "store/result_store.h"
#include "store/sqlite_database.h"

namespace capmap {

struct StoredRun {
  std::string run_key;
  nlohmann::json info;  // {"library","versions","settings","device","cpu","cores"}
  std::string created;
};

struct StoredShard {
  int shard = 1;  // 1-based
  int shard_count = 1;
  std::vector<std::string> paths;
};

// One row of the `selections` table: what one run (one shard) was asked for.
struct StoredSelection {
  std::vector<std::string> only, tags;
  int shard = 1;
  int shard_count = 1;
  long long registry_cases = 0;
  long long cases = 0;
};

// One row of the records table as merge reads it (not ResultStore's StoredRecord:
// two classes of one name in one program break the one-definition rule).
struct RecordRow {
  std::string case_name;
  std::string path;
  nlohmann::json record;  // RECORD with `status` and `seconds` filled from their columns
  std::string created;
};

class StoreReader {
 public:
  // Throws UserError naming the file when it is missing or not a capmap store.
  explicit StoreReader(const std::filesystem::path& file);

  const std::filesystem::path& file() const { return file_; }
  std::vector<StoredRun> runs();
  std::vector<nlohmann::json> cases(const std::string& run_key);
  std::vector<nlohmann::json> excludes(const std::string& run_key);
  std::vector<StoredShard> shards(const std::string& run_key);
  // nullopt when the store predates the `selections` table.
  std::optional<std::vector<StoredSelection>> selections(const std::string& run_key);
  // `capmap repro --check` verdicts of one run key by (case, path); empty when
  // the store has no `repro` table (never checked).
  std::map<CasePath, ReproResult> repro_checks(const std::string& run_key);
  // Streams the records of one run key, ordered by case name then path.
  void for_each_record(const std::string& run_key, const std::function<void(RecordRow&&)>& visit);

 private:
  bool has_table(const char* name);
  std::vector<nlohmann::json> json_column(const char* sql, const std::string& run_key,
                                          const char* what);

  std::filesystem::path file_;
  SqliteDatabase db_;
};

}  // namespace capmap

#pragma once
// Read-only view of a results store (SQLite file written by `capmap run`).
// merge never writes to a store, so a refused merge cannot damage one.
#include <sqlite3.h>

#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

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

struct StoredRecord {
  std::string case_name;
  std::string path;
  nlohmann::json record;  // RECORD with `status` and `seconds` filled from their columns
  std::string created;
};

class StoreReader {
 public:
  // Throws UserError naming the file when it is missing or not a capmap store.
  explicit StoreReader(const std::filesystem::path& file);
  ~StoreReader();
  StoreReader(const StoreReader&) = delete;
  StoreReader& operator=(const StoreReader&) = delete;

  const std::filesystem::path& file() const { return file_; }
  std::vector<StoredRun> runs() const;
  std::vector<nlohmann::json> cases(const std::string& run_key) const;
  std::vector<nlohmann::json> excludes(const std::string& run_key) const;
  std::vector<StoredShard> shards(const std::string& run_key) const;
  // Streams the records of one run key, ordered by case name then path.
  void for_each_record(const std::string& run_key,
                       const std::function<void(StoredRecord&&)>& visit) const;

 private:
  std::vector<nlohmann::json> json_column(const char* sql, const std::string& run_key,
                                          const char* what) const;

  std::filesystem::path file_;
  sqlite3* db_ = nullptr;
};

}  // namespace capmap

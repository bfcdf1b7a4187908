#pragma once
// ResultStore: the SQLite file that holds every outcome of every run (schema
// in docs/reference/store.md). The supervisor is its only writer and commits each
// record as it arrives, so killing the run at any moment loses nothing stored.
#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "store/sqlite_database.h"
#include "store/store_lock.h"

namespace capmap {

inline constexpr int kStoreSchemaVersion = 1;

struct StoredRecord {
  std::string case_name;
  std::string path;
  std::string status;
  double seconds = 0;
  nlohmann::json record;  // the whole RECORD object
  std::string created;
};

// (case name, path) — the identity of one record within a run key.
using CasePath = std::pair<std::string, std::string>;

struct RunDescription {
  std::string run_key;
  nlohmann::json info;  // {"library","versions","settings","device","cpu","cores"}
  nlohmann::json cases = nlohmann::json::array();     // CASE objects, whole inventory
  nlohmann::json excludes = nlohmann::json::array();  // {"name","reason","where"}
  int shard = 1;
  int shard_count = 1;
  std::vector<std::string> paths;
  // What the run was asked for (the `selections` table): --only patterns and
  // tags as given, and the number of cases in the registry.
  std::vector<std::string> only;
  std::vector<std::string> tags;
  long long registry_cases = 0;
};

class ResultStore {
 public:
  // Fails with a UserError naming the file when an existing file is not a
  // readable, writable capmap store. Changes nothing; an absent file passes.
  static void check_existing(const std::filesystem::path& path);

  // Opens the store for writing, creating the file (and its folder) if absent.
  // Holds the store's lock while open: a second writer (another `capmap run`)
  // is refused with "store in use by run PID since TIME" (see store_lock.h).
  static ResultStore open_for_writing(const std::filesystem::path& path);
  // Opens an existing store for reading only.
  static ResultStore open_for_reading(const std::filesystem::path& path);

  // Records the run, its inventory, the shard it covers and its selection.
  void begin_run(const RunDescription& run);

  // Commits one record at once. `record` must hold "status"; "seconds" defaults to 0.
  void put_record(const std::string& run_key, const std::string& case_name, const std::string& path,
                  const nlohmann::json& record);

  // Counts one more dispatch of each path of a case, in one transaction.
  void mark_dispatched(const std::string& run_key, const std::string& case_name,
                       const std::vector<std::string>& paths);
  // Takes back a dispatch that ended without a fault (the user interrupted it).
  void unmark_dispatched(const std::string& run_key, const std::string& case_name,
                         const std::vector<std::string>& paths);
  void reset_dispatches(const std::string& run_key, const std::string& case_name,
                        const std::string& path);

  std::map<CasePath, StoredRecord> records(const std::string& run_key);
  std::map<CasePath, int> dispatch_attempts(const std::string& run_key);
  // Seconds of the newest record of each (case, path) under any run key: the
  // scheduler's estimate of how long a task takes.
  std::map<CasePath, double> known_durations();
  // Every run key in the store with its info, oldest first.
  std::vector<std::pair<std::string, nlohmann::json>> runs();

  const std::filesystem::path& path() const { return path_; }

 private:
  ResultStore(std::filesystem::path path, SqliteDatabase db, std::optional<StoreLock> lock);
  void keep_path_descriptions(const RunDescription& run);
  // Throws StorageError when the store file was removed, moved or replaced
  // since it was opened: SQLite would go on writing to the unlinked file, and
  // every record after that would be lost without a word.
  void check_still_in_place() const;

  std::filesystem::path path_;
  dev_t device_ = 0;  // of the opened file, for check_still_in_place
  ino_t inode_ = 0;
  std::optional<StoreLock> lock_;  // held by a writer; declared first, released last
  SqliteDatabase db_;
};

// UTC time as 2026-01-31T12:00:00Z.
std::string utc_timestamp();

}  // namespace capmap

#include "store/result_store.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <ctime>
#include <system_error>

#include "common/user_error.h"
#include "store/storage_error.h"

namespace capmap {

namespace {

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS runs(run_key TEXT PRIMARY KEY, info TEXT, created TEXT);
CREATE TABLE IF NOT EXISTS cases(run_key TEXT, name TEXT, info TEXT, PRIMARY KEY(run_key, name));
CREATE TABLE IF NOT EXISTS excludes(run_key TEXT, name TEXT, info TEXT,
                                    PRIMARY KEY(run_key, name));
CREATE TABLE IF NOT EXISTS shards(run_key TEXT, shard INTEGER, shard_count INTEGER, paths TEXT,
                                  PRIMARY KEY(run_key, shard, shard_count));
CREATE TABLE IF NOT EXISTS records(run_key TEXT, case_name TEXT, path TEXT, status TEXT,
                                   seconds REAL, record TEXT, created TEXT,
                                   PRIMARY KEY(run_key, case_name, path));
CREATE TABLE IF NOT EXISTS dispatches(run_key TEXT, case_name TEXT, path TEXT, attempts INTEGER,
                                      PRIMARY KEY(run_key, case_name, path));
CREATE TABLE IF NOT EXISTS selections(run_key TEXT, only TEXT, tags TEXT, shard TEXT,
                                      registry_cases INTEGER, cases INTEGER,
                                      PRIMARY KEY(run_key, only, tags, shard));
)sql";

// Reads schema_version; throws a UserError naming the file when this is not a
// capmap store. Only reads.
void verify_schema(SqliteDatabase& db) {
  auto has_meta = db.prepare("SELECT 1 FROM sqlite_master WHERE type='table' AND name='meta'");
  if (!has_meta.step()) {
    throw UserError(db.name() + ": not a capmap results store (no meta table)");
  }
  auto version = db.prepare("SELECT value FROM meta WHERE key='schema_version'");
  if (!version.step()) {
    throw UserError(db.name() + ": not a capmap results store (no schema_version)");
  }
  std::string found = version.text(0);
  if (found != std::to_string(kStoreSchemaVersion)) {
    throw UserError(fmt::format("{}: results store has schema version {}, this capmap reads {}",
                                db.name(), found, kStoreSchemaVersion));
  }
}

std::string describe_open_failure(const std::filesystem::path& path, const UserError& error) {
  std::string message = error.what();
  // SQLite says "file is not a database" for a corrupt or foreign file.
  if (message.find("not a database") != std::string::npos) {
    return path.string() + ": not a readable results store (corrupt, or not an SQLite file)";
  }
  return message;
}

}  // namespace

// A run key keeps the info of its first run, but a later run of it may probe
// paths the first did not: their descriptions join the stored ones (a path
// described again takes the newer description).
void ResultStore::keep_path_descriptions(const RunDescription& run) {
  auto given = run.info.find("path_info");
  if (given == run.info.end() || !given->is_array()) return;
  auto read = db_.prepare("SELECT info FROM runs WHERE run_key = ?");
  read.bind(1, run.run_key);
  if (!read.step()) return;
  nlohmann::json info = nlohmann::json::parse(read.text(0), nullptr, false);
  if (!info.is_object()) return;
  nlohmann::json merged = *given;
  if (auto stored = info.find("path_info"); stored != info.end() && stored->is_array()) {
    for (const auto& old : *stored) {
      if (!old.is_object()) continue;
      bool described = std::any_of(given->begin(), given->end(), [&](const nlohmann::json& p) {
        return p.is_object() && p.value("name", "") == old.value("name", "");
      });
      if (!described) merged.push_back(old);
    }
  }
  if (info.value("path_info", nlohmann::json()) == merged) return;
  info["path_info"] = std::move(merged);
  db_.prepare("UPDATE runs SET info = ? WHERE run_key = ?")
      .bind(1, info.dump())
      .bind(2, run.run_key)
      .run();
}

std::string utc_timestamp() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buffer;
}

void ResultStore::check_existing(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return;
  if (std::filesystem::is_directory(path, ec)) {
    throw UserError(path.string() + ": is a folder, not a results store");
  }
  if (::access(path.c_str(), R_OK | W_OK) != 0) {
    int error = errno;
    if (error == EACCES || error == EROFS || error == EPERM) {
      throw storage_error(path, "results store is not readable and writable", error);
    }
    throw UserError(path.string() + ": results store is not readable and writable");
  }
  try {
    SqliteDatabase db(path, SQLITE_OPEN_READONLY);
    verify_schema(db);
  } catch (const UserError& error) {
    throw UserError(describe_open_failure(path, error));
  }
}

ResultStore ResultStore::open_for_writing(const std::filesystem::path& path) {
  check_existing(path);
  std::error_code ec;
  bool existed = std::filesystem::exists(path, ec);
  if (!existed && path.has_parent_path()) {
    std::filesystem::create_directories(path.parent_path(), ec);
    if (ec) {
      throw UserError(
          fmt::format("{}: cannot create folder: {}", path.parent_path().string(), ec.message()));
    }
  }
  // Taken before SQLite touches the file, so that a refused run changes nothing.
  StoreLock lock = StoreLock::acquire(path);
  SqliteDatabase db(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  // WAL: a reader (merge) never blocks the writer; NORMAL sync still keeps
  // every committed record when the process (not the machine) dies.
  db.exec("PRAGMA journal_mode=WAL");
  db.exec("PRAGMA synchronous=NORMAL");
  // Every table is created if absent, so a store written before a table was
  // added gains it on its next run.
  in_transaction(db, [&] {
    db.exec(kSchema);
    if (!existed) {
      db.prepare("INSERT OR REPLACE INTO meta(key, value) VALUES ('schema_version', ?)")
          .bind(1, std::to_string(kStoreSchemaVersion))
          .run();
    }
  });
  return ResultStore(path, std::move(db), std::move(lock));
}

ResultStore ResultStore::open_for_reading(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    throw UserError(path.string() + ": no such results store");
  try {
    SqliteDatabase db(path, SQLITE_OPEN_READONLY);
    verify_schema(db);
    return ResultStore(path, std::move(db), std::nullopt);
  } catch (const UserError& error) {
    throw UserError(describe_open_failure(path, error));
  }
}

ResultStore::ResultStore(std::filesystem::path path, SqliteDatabase db,
                         std::optional<StoreLock> lock)
    : path_(std::move(path)), lock_(std::move(lock)), db_(std::move(db)) {
  struct stat info {};
  if (::stat(path_.c_str(), &info) == 0) {
    device_ = info.st_dev;
    inode_ = info.st_ino;
  }
}

void ResultStore::check_still_in_place() const {
  struct stat info {};
  int error = ::stat(path_.c_str(), &info) == 0 ? 0 : errno;
  if (error == 0 && info.st_dev == device_ && info.st_ino == inode_) return;
  std::string cause = storage_cause(path_, SQLITE_READONLY_DBMOVED, error);
  throw StorageError(fmt::format("{}: cannot write: {}", path_.string(), cause));
}

void ResultStore::begin_run(const RunDescription& run) {
  check_still_in_place();
  in_transaction(db_, [&] {
    db_.prepare("INSERT OR IGNORE INTO runs(run_key, info, created) VALUES (?, ?, ?)")
        .bind(1, run.run_key)
        .bind(2, run.info.dump())
        .bind(3, utc_timestamp())
        .run();
    keep_path_descriptions(run);
    auto add_case = db_.prepare("INSERT OR REPLACE INTO cases(run_key, name, info) VALUES (?,?,?)");
    for (const auto& c : run.cases) {
      add_case.bind(1, run.run_key).bind(2, c.at("name").get<std::string>()).bind(3, c.dump());
      add_case.run();
    }
    auto add_exclude =
        db_.prepare("INSERT OR REPLACE INTO excludes(run_key, name, info) VALUES (?,?,?)");
    for (const auto& e : run.excludes) {
      add_exclude.bind(1, run.run_key).bind(2, e.value("name", "")).bind(3, e.dump());
      add_exclude.run();
    }
    db_.prepare(
           "INSERT OR REPLACE INTO shards(run_key, shard, shard_count, paths) VALUES (?,?,?,?)")
        .bind(1, run.run_key)
        .bind(2, std::int64_t{run.shard})
        .bind(3, std::int64_t{run.shard_count})
        .bind(4, nlohmann::json(run.paths).dump())
        .run();
    auto sorted = [](std::vector<std::string> items) {
      std::sort(items.begin(), items.end());
      items.erase(std::unique(items.begin(), items.end()), items.end());
      return nlohmann::json(items).dump();
    };
    db_.prepare(
           "INSERT OR REPLACE INTO selections(run_key, only, tags, shard, registry_cases, cases) "
           "VALUES (?,?,?,?,?,?)")
        .bind(1, run.run_key)
        .bind(2, sorted(run.only))
        .bind(3, sorted(run.tags))
        .bind(4, fmt::format("{}/{}", run.shard, run.shard_count))
        .bind(5, static_cast<std::int64_t>(run.registry_cases))
        .bind(6, static_cast<std::int64_t>(run.cases.size()))
        .run();
  });
}

void ResultStore::put_record(const std::string& run_key, const std::string& case_name,
                             const std::string& path, const nlohmann::json& record) {
  check_still_in_place();
  double seconds = 0;
  if (auto it = record.find("seconds"); it != record.end() && it->is_number()) {
    seconds = it->get<double>();
  }
  db_.prepare(
         "INSERT OR REPLACE INTO records(run_key, case_name, path, status, seconds, record, "
         "created) VALUES (?,?,?,?,?,?,?)")
      .bind(1, run_key)
      .bind(2, case_name)
      .bind(3, path)
      .bind(4, record.at("status").get<std::string>())
      .bind(5, seconds)
      // Replace invalid UTF-8 (a case may print anything) instead of throwing.
      .bind(6, record.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace))
      .bind(7, utc_timestamp())
      .run();
}

void ResultStore::mark_dispatched(const std::string& run_key, const std::string& case_name,
                                  const std::vector<std::string>& paths) {
  check_still_in_place();
  in_transaction(db_, [&] {
    auto mark = db_.prepare(
        "INSERT INTO dispatches(run_key, case_name, path, attempts) VALUES (?,?,?,1) "
        "ON CONFLICT(run_key, case_name, path) DO UPDATE SET attempts = attempts + 1");
    for (const auto& path : paths) {
      mark.bind(1, run_key).bind(2, case_name).bind(3, path);
      mark.run();
    }
  });
}

void ResultStore::unmark_dispatched(const std::string& run_key, const std::string& case_name,
                                    const std::vector<std::string>& paths) {
  in_transaction(db_, [&] {
    auto unmark = db_.prepare(
        "UPDATE dispatches SET attempts = MAX(attempts - 1, 0) "
        "WHERE run_key=? AND case_name=? AND path=?");
    for (const auto& path : paths) {
      unmark.bind(1, run_key).bind(2, case_name).bind(3, path);
      unmark.run();
    }
  });
}

void ResultStore::reset_dispatches(const std::string& run_key, const std::string& case_name,
                                   const std::string& path) {
  db_.prepare("DELETE FROM dispatches WHERE run_key=? AND case_name=? AND path=?")
      .bind(1, run_key)
      .bind(2, case_name)
      .bind(3, path)
      .run();
}

std::map<CasePath, StoredRecord> ResultStore::records(const std::string& run_key) {
  std::map<CasePath, StoredRecord> found;
  auto query = db_.prepare(
      "SELECT case_name, path, status, seconds, record, created FROM records WHERE run_key=?");
  query.bind(1, run_key);
  while (query.step()) {
    StoredRecord r;
    r.case_name = query.text(0);
    r.path = query.text(1);
    r.status = query.text(2);
    r.seconds = query.real(3);
    r.record = nlohmann::json::parse(query.text(4), nullptr, false);
    if (r.record.is_discarded()) r.record = nlohmann::json::object();
    r.created = query.text(5);
    found.emplace(CasePath{r.case_name, r.path}, std::move(r));
  }
  return found;
}

std::map<CasePath, int> ResultStore::dispatch_attempts(const std::string& run_key) {
  std::map<CasePath, int> found;
  auto query = db_.prepare("SELECT case_name, path, attempts FROM dispatches WHERE run_key=?");
  query.bind(1, run_key);
  while (query.step()) {
    found[{query.text(0), query.text(1)}] = static_cast<int>(query.integer(2));
  }
  return found;
}

std::map<CasePath, double> ResultStore::known_durations() {
  std::map<CasePath, double> found;
  // Oldest first, so the newest record of a (case, path) wins.
  auto query = db_.prepare("SELECT case_name, path, seconds FROM records ORDER BY created, rowid");
  while (query.step()) found[{query.text(0), query.text(1)}] = query.real(2);
  return found;
}

std::vector<std::pair<std::string, nlohmann::json>> ResultStore::runs() {
  std::vector<std::pair<std::string, nlohmann::json>> found;
  auto query = db_.prepare("SELECT run_key, info FROM runs ORDER BY created, rowid");
  while (query.step()) {
    auto info = nlohmann::json::parse(query.text(1), nullptr, false);
    found.emplace_back(query.text(0), info.is_discarded() ? nlohmann::json::object() : info);
  }
  return found;
}

}  // namespace capmap

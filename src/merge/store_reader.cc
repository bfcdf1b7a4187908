#include "merge/store_reader.h"

#include <fmt/format.h>

#include <cstdio>
#include <memory>

#include "common/user_error.h"

namespace capmap {
namespace {

struct StatementDeleter {
  void operator()(sqlite3_stmt* stmt) const { sqlite3_finalize(stmt); }
};
using Statement = std::unique_ptr<sqlite3_stmt, StatementDeleter>;

std::string column_text(sqlite3_stmt* stmt, int column) {
  const unsigned char* text = sqlite3_column_text(stmt, column);
  return text ? reinterpret_cast<const char*>(text) : "";
}

}  // namespace

StoreReader::StoreReader(const std::filesystem::path& file) : file_(file) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) {
    throw UserError(fmt::format("{}: no such store", file.string()));
  }
  if (sqlite3_open_v2(file.c_str(), &db_, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    std::string why = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    throw UserError(fmt::format("{}: cannot open store: {}", file.string(), why));
  }
  sqlite3_busy_timeout(db_, 5000);
  // One read transaction for the reader's whole life: every query below sees the
  // store as it was at the first one, so a merge while a run writes reads a
  // consistent snapshot (WAL keeps it while the writer goes on committing).
  sqlite3_exec(db_, "BEGIN", nullptr, nullptr, nullptr);
  // A file that is not SQLite, or SQLite without our tables, fails here.
  std::string version;
  sqlite3_stmt* raw = nullptr;
  if (sqlite3_prepare_v2(db_, "SELECT value FROM meta WHERE key = 'schema_version'", -1, &raw,
                         nullptr) != SQLITE_OK) {
    sqlite3_close(db_);
    db_ = nullptr;
    throw UserError(fmt::format("{}: not a capmap results store", file.string()));
  }
  Statement stmt(raw);
  if (sqlite3_step(stmt.get()) == SQLITE_ROW) version = column_text(stmt.get(), 0);
  stmt.reset();
  if (version != "1") {
    sqlite3_close(db_);
    db_ = nullptr;
    throw UserError(fmt::format("{}: unsupported store schema version '{}' (expected 1)",
                                file.string(), version));
  }
}

StoreReader::~StoreReader() { sqlite3_close(db_); }

std::vector<nlohmann::json> StoreReader::json_column(const char* sql, const std::string& run_key,
                                                     const char* what) const {
  sqlite3_stmt* raw = nullptr;
  if (sqlite3_prepare_v2(db_, sql, -1, &raw, nullptr) != SQLITE_OK) {
    throw UserError(
        fmt::format("{}: cannot read {}: {}", file_.string(), what, sqlite3_errmsg(db_)));
  }
  Statement stmt(raw);
  sqlite3_bind_text(stmt.get(), 1, run_key.data(), static_cast<int>(run_key.size()),
                    SQLITE_TRANSIENT);
  std::vector<nlohmann::json> rows;
  int rc;
  while ((rc = sqlite3_step(stmt.get())) == SQLITE_ROW) {
    std::string text = column_text(stmt.get(), 0);
    auto parsed = nlohmann::json::parse(text, nullptr, false);
    if (parsed.is_discarded()) {
      throw UserError(fmt::format("{}: {} is not valid JSON: {:.80}", file_.string(), what, text));
    }
    rows.push_back(std::move(parsed));
  }
  if (rc != SQLITE_DONE) {
    throw UserError(
        fmt::format("{}: cannot read {}: {}", file_.string(), what, sqlite3_errmsg(db_)));
  }
  return rows;
}

std::vector<StoredRun> StoreReader::runs() const {
  sqlite3_stmt* raw = nullptr;
  if (sqlite3_prepare_v2(db_, "SELECT run_key, info, created FROM runs ORDER BY run_key", -1, &raw,
                         nullptr) != SQLITE_OK) {
    throw UserError(fmt::format("{}: cannot read runs: {}", file_.string(), sqlite3_errmsg(db_)));
  }
  Statement stmt(raw);
  std::vector<StoredRun> runs;
  while (sqlite3_step(stmt.get()) == SQLITE_ROW) {
    StoredRun run;
    run.run_key = column_text(stmt.get(), 0);
    run.info = nlohmann::json::parse(column_text(stmt.get(), 1), nullptr, false);
    if (run.info.is_discarded() || !run.info.is_object()) {
      throw UserError(
          fmt::format("{}: run {} has malformed info JSON", file_.string(), run.run_key));
    }
    run.created = column_text(stmt.get(), 2);
    runs.push_back(std::move(run));
  }
  return runs;
}

std::map<std::pair<std::string, std::string>, ReproMark> StoreReader::repro(
    const std::string& run_key) const {
  std::map<std::pair<std::string, std::string>, ReproMark> marks;
  sqlite3_stmt* raw = nullptr;
  if (sqlite3_prepare_v2(db_, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'repro'",
                         -1, &raw, nullptr) != SQLITE_OK) {
    throw UserError(
        fmt::format("{}: cannot read the table list: {}", file_.string(), sqlite3_errmsg(db_)));
  }
  Statement exists(raw);
  if (sqlite3_step(exists.get()) != SQLITE_ROW) return marks;
  exists.reset();
  if (sqlite3_prepare_v2(db_,
                         "SELECT case_name, path, record_created, reproduced, outcome, script "
                         "FROM repro WHERE run_key = ?1",
                         -1, &raw, nullptr) != SQLITE_OK) {
    throw UserError(
        fmt::format("{}: cannot read repro checks: {}", file_.string(), sqlite3_errmsg(db_)));
  }
  Statement stmt(raw);
  sqlite3_bind_text(stmt.get(), 1, run_key.data(), static_cast<int>(run_key.size()),
                    SQLITE_TRANSIENT);
  while (sqlite3_step(stmt.get()) == SQLITE_ROW) {
    ReproMark mark;
    mark.record_created = column_text(stmt.get(), 2);
    mark.reproduced = sqlite3_column_int(stmt.get(), 3) != 0;
    mark.outcome = column_text(stmt.get(), 4);
    mark.script = column_text(stmt.get(), 5);
    marks[{column_text(stmt.get(), 0), column_text(stmt.get(), 1)}] = std::move(mark);
  }
  return marks;
}

std::vector<nlohmann::json> StoreReader::cases(const std::string& run_key) const {
  return json_column("SELECT info FROM cases WHERE run_key = ?1 ORDER BY name", run_key,
                     "case inventory");
}

std::vector<nlohmann::json> StoreReader::excludes(const std::string& run_key) const {
  return json_column("SELECT info FROM excludes WHERE run_key = ?1 ORDER BY name", run_key,
                     "excludes");
}

std::vector<StoredShard> StoreReader::shards(const std::string& run_key) const {
  sqlite3_stmt* raw = nullptr;
  if (sqlite3_prepare_v2(db_,
                         "SELECT shard, shard_count, paths FROM shards WHERE run_key = ?1 "
                         "ORDER BY shard_count, shard",
                         -1, &raw, nullptr) != SQLITE_OK) {
    throw UserError(fmt::format("{}: cannot read shards: {}", file_.string(), sqlite3_errmsg(db_)));
  }
  Statement stmt(raw);
  sqlite3_bind_text(stmt.get(), 1, run_key.data(), static_cast<int>(run_key.size()),
                    SQLITE_TRANSIENT);
  std::vector<StoredShard> shards;
  while (sqlite3_step(stmt.get()) == SQLITE_ROW) {
    StoredShard shard;
    shard.shard = sqlite3_column_int(stmt.get(), 0);
    shard.shard_count = sqlite3_column_int(stmt.get(), 1);
    auto paths = nlohmann::json::parse(column_text(stmt.get(), 2), nullptr, false);
    if (!paths.is_array()) {
      throw UserError(fmt::format("{}: shard {}/{} has a malformed paths list", file_.string(),
                                  shard.shard, shard.shard_count));
    }
    for (const auto& path : paths) {
      if (path.is_string()) shard.paths.push_back(path.get<std::string>());
    }
    shards.push_back(std::move(shard));
  }
  return shards;
}

std::optional<std::vector<StoredSelection>> StoreReader::selections(
    const std::string& run_key) const {
  sqlite3_stmt* raw = nullptr;
  if (sqlite3_prepare_v2(db_,
                         "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'selections'",
                         -1, &raw, nullptr) != SQLITE_OK) {
    throw UserError(
        fmt::format("{}: cannot read the table list: {}", file_.string(), sqlite3_errmsg(db_)));
  }
  Statement exists(raw);
  if (sqlite3_step(exists.get()) != SQLITE_ROW) return std::nullopt;
  exists.reset();
  if (sqlite3_prepare_v2(db_,
                         "SELECT only, tags, shard, registry_cases, cases FROM selections "
                         "WHERE run_key = ?1 ORDER BY shard, only, tags",
                         -1, &raw, nullptr) != SQLITE_OK) {
    throw UserError(
        fmt::format("{}: cannot read selections: {}", file_.string(), sqlite3_errmsg(db_)));
  }
  Statement stmt(raw);
  sqlite3_bind_text(stmt.get(), 1, run_key.data(), static_cast<int>(run_key.size()),
                    SQLITE_TRANSIENT);
  auto strings = [&](int column, const char* what) {
    auto list = nlohmann::json::parse(column_text(stmt.get(), column), nullptr, false);
    std::vector<std::string> out;
    if (!list.is_array()) {
      throw UserError(fmt::format("{}: a selection of run {} has a malformed {} list",
                                  file_.string(), run_key, what));
    }
    for (const auto& item : list) {
      if (item.is_string()) out.push_back(item.get<std::string>());
    }
    return out;
  };
  std::vector<StoredSelection> rows;
  int rc;
  while ((rc = sqlite3_step(stmt.get())) == SQLITE_ROW) {
    StoredSelection row;
    row.only = strings(0, "only");
    row.tags = strings(1, "tags");
    std::string shard = column_text(stmt.get(), 2);
    if (std::sscanf(shard.c_str(), "%d/%d", &row.shard, &row.shard_count) != 2 || row.shard < 1 ||
        row.shard > row.shard_count) {
      throw UserError(fmt::format("{}: a selection of run {} has a malformed shard '{}'",
                                  file_.string(), run_key, shard));
    }
    row.registry_cases = sqlite3_column_int64(stmt.get(), 3);
    row.cases = sqlite3_column_int64(stmt.get(), 4);
    rows.push_back(std::move(row));
  }
  if (rc != SQLITE_DONE) {
    throw UserError(
        fmt::format("{}: cannot read selections: {}", file_.string(), sqlite3_errmsg(db_)));
  }
  return rows;
}

void StoreReader::for_each_record(const std::string& run_key,
                                  const std::function<void(RecordRow&&)>& visit) const {
  sqlite3_stmt* raw = nullptr;
  if (sqlite3_prepare_v2(db_,
                         "SELECT case_name, path, status, seconds, record, created FROM records "
                         "WHERE run_key = ?1 ORDER BY case_name, path",
                         -1, &raw, nullptr) != SQLITE_OK) {
    throw UserError(
        fmt::format("{}: cannot read records: {}", file_.string(), sqlite3_errmsg(db_)));
  }
  Statement stmt(raw);
  sqlite3_bind_text(stmt.get(), 1, run_key.data(), static_cast<int>(run_key.size()),
                    SQLITE_TRANSIENT);
  int rc;
  while ((rc = sqlite3_step(stmt.get())) == SQLITE_ROW) {
    RecordRow rec;
    rec.case_name = column_text(stmt.get(), 0);
    rec.path = column_text(stmt.get(), 1);
    const char* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt.get(), 4));
    int size = sqlite3_column_bytes(stmt.get(), 4);
    rec.record =
        text ? nlohmann::json::parse(text, text + size, nullptr, false) : nlohmann::json::object();
    if (rec.record.is_discarded() || !rec.record.is_object()) {
      throw UserError(fmt::format("{}: record {} / {} is not a JSON object", file_.string(),
                                  rec.case_name, rec.path));
    }
    // The columns are what the supervisor decided; they win over the JSON copy.
    rec.record["status"] = column_text(stmt.get(), 2);
    if (sqlite3_column_type(stmt.get(), 3) != SQLITE_NULL) {
      rec.record["seconds"] = sqlite3_column_double(stmt.get(), 3);
    }
    rec.created = column_text(stmt.get(), 5);
    visit(std::move(rec));
  }
  if (rc != SQLITE_DONE) {
    throw UserError(
        fmt::format("{}: cannot read records: {}", file_.string(), sqlite3_errmsg(db_)));
  }
}

}  // namespace capmap

#include "store/sqlite_database.h"

#include <fmt/format.h>

#include <utility>

#include "common/user_error.h"
#include "store/storage_error.h"

namespace capmap {

namespace {

// A full disk, a read-only or vanished file becomes a StorageError naming that
// cause; anything else keeps SQLite's own words.
[[noreturn]] void throw_failure(sqlite3* db, const std::string& name, std::string_view what,
                                const std::string& message) {
  std::string cause =
      db ? storage_cause(name, sqlite3_extended_errcode(db), sqlite3_system_errno(db))
         : std::string();
  if (!cause.empty()) throw StorageError(fmt::format("{}: {}: {}", name, what, cause));
  throw UserError(fmt::format("{}: {}: {}", name, what, message));
}

}  // namespace

SqliteStatement::SqliteStatement(sqlite3* db, std::string_view sql, std::string db_name,
                                 std::string action)
    : db_(db), db_name_(std::move(db_name)), action_(std::move(action)) {
  if (sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &stmt_, nullptr) !=
      SQLITE_OK) {
    fail("cannot prepare query");
  }
}

SqliteStatement::SqliteStatement(SqliteStatement&& other) noexcept
    : db_(other.db_),
      stmt_(std::exchange(other.stmt_, nullptr)),
      db_name_(std::move(other.db_name_)),
      action_(std::move(other.action_)) {}

SqliteStatement::~SqliteStatement() { sqlite3_finalize(stmt_); }

void SqliteStatement::fail(std::string_view what) const {
  throw_failure(db_, db_name_, action_.empty() ? what : std::string_view(action_),
                sqlite3_errmsg(db_));
}

SqliteStatement& SqliteStatement::bind(int index, std::string_view text) {
  if (sqlite3_bind_text(stmt_, index, text.data(), static_cast<int>(text.size()),
                        SQLITE_TRANSIENT) != SQLITE_OK) {
    fail("cannot bind a value");
  }
  return *this;
}

SqliteStatement& SqliteStatement::bind(int index, double value) {
  if (sqlite3_bind_double(stmt_, index, value) != SQLITE_OK) fail("cannot bind a value");
  return *this;
}

SqliteStatement& SqliteStatement::bind(int index, std::int64_t value) {
  if (sqlite3_bind_int64(stmt_, index, value) != SQLITE_OK) fail("cannot bind a value");
  return *this;
}

SqliteStatement& SqliteStatement::bind_null(int index) {
  if (sqlite3_bind_null(stmt_, index) != SQLITE_OK) fail("cannot bind a value");
  return *this;
}

bool SqliteStatement::step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) {
    sqlite3_reset(stmt_);
    return false;
  }
  sqlite3_reset(stmt_);
  fail("query failed");
}

void SqliteStatement::run() {
  while (step()) {
  }
}

std::string SqliteStatement::text(int column) const {
  const unsigned char* p = sqlite3_column_text(stmt_, column);
  if (p == nullptr) return {};
  return std::string(reinterpret_cast<const char*>(p),
                     static_cast<size_t>(sqlite3_column_bytes(stmt_, column)));
}

double SqliteStatement::real(int column) const { return sqlite3_column_double(stmt_, column); }

std::int64_t SqliteStatement::integer(int column) const {
  return sqlite3_column_int64(stmt_, column);
}

bool SqliteStatement::is_null(int column) const {
  return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}

SqliteDatabase::SqliteDatabase(const std::filesystem::path& path, int flags,
                               std::string_view action)
    : name_(path.string()) {
  if (sqlite3_open_v2(name_.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
    std::string message = db_ ? sqlite3_errmsg(db_) : "out of memory";
    std::string cause =
        db_ ? storage_cause(path, sqlite3_extended_errcode(db_), sqlite3_system_errno(db_)) : "";
    sqlite3_close(db_);
    db_ = nullptr;
    if (!cause.empty()) {
      throw StorageError(fmt::format("{}: {}: {}", name_, action, cause));
    }
    throw UserError(fmt::format("{}: {}: {}", name_, action, message));
  }
  sqlite3_extended_result_codes(db_, 1);
  // Readers (merge) may look at the store while a run writes it.
  sqlite3_busy_timeout(db_, 10000);
}

SqliteDatabase::SqliteDatabase(SqliteDatabase&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)), name_(std::move(other.name_)) {}

SqliteDatabase::~SqliteDatabase() { sqlite3_close(db_); }

void SqliteDatabase::exec(std::string_view sql) {
  char* error = nullptr;
  std::string owned(sql);
  if (sqlite3_exec(db_, owned.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
    std::string message = error ? error : sqlite3_errmsg(db_);
    sqlite3_free(error);
    std::string cause =
        storage_cause(name_, sqlite3_extended_errcode(db_), sqlite3_system_errno(db_));
    if (!cause.empty()) throw StorageError(fmt::format("{}: cannot write: {}", name_, cause));
    throw UserError(fmt::format("{}: {}", name_, message));
  }
}

SqliteStatement SqliteDatabase::prepare(std::string_view sql, std::string action) {
  return SqliteStatement(db_, sql, name_, std::move(action));
}

}  // namespace capmap

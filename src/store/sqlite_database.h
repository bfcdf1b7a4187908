#pragma once
// A thin RAII layer over the SQLite C API: one open database and its prepared
// statements. Every failure becomes a UserError naming the database file.
#include <sqlite3.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace capmap {

class SqliteStatement {
 public:
  // `action` ("cannot read runs") names what failed in every error of this
  // statement; empty: SQLite's step ("cannot prepare query", "query failed").
  SqliteStatement(sqlite3* db, std::string_view sql, std::string db_name, std::string action = {});
  SqliteStatement(SqliteStatement&& other) noexcept;
  SqliteStatement(const SqliteStatement&) = delete;
  SqliteStatement& operator=(const SqliteStatement&) = delete;
  ~SqliteStatement();

  // Parameters are 1-based, as in SQLite.
  SqliteStatement& bind(int index, std::string_view text);
  SqliteStatement& bind(int index, double value);
  SqliteStatement& bind(int index, std::int64_t value);
  SqliteStatement& bind_null(int index);

  // Advances to the next row; false when the statement is done.
  bool step();
  // Runs a statement that returns no rows.
  void run();

  std::string text(int column) const;
  double real(int column) const;
  std::int64_t integer(int column) const;
  bool is_null(int column) const;

 private:
  [[noreturn]] void fail(std::string_view what) const;

  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
  std::string db_name_;
  std::string action_;
};

class SqliteDatabase {
 public:
  // flags are SQLITE_OPEN_* flags; `action` begins the message when the file cannot be opened.
  SqliteDatabase(const std::filesystem::path& path, int flags,
                 std::string_view action = "cannot open the results store");
  SqliteDatabase(SqliteDatabase&& other) noexcept;
  SqliteDatabase(const SqliteDatabase&) = delete;
  SqliteDatabase& operator=(const SqliteDatabase&) = delete;
  ~SqliteDatabase();

  void exec(std::string_view sql);
  SqliteStatement prepare(std::string_view sql, std::string action = {});
  const std::string& name() const { return name_; }

 private:
  sqlite3* db_ = nullptr;
  std::string name_;
};

// Runs the given statements as one transaction, rolling back when one throws.
template <typename Body>
void in_transaction(SqliteDatabase& db, Body&& body) {
  db.exec("BEGIN IMMEDIATE");
  try {
    body();
  } catch (...) {
    try {
      db.exec("ROLLBACK");
    } catch (...) {  // The original error is the one worth reporting.
    }
    throw;
  }
  db.exec("COMMIT");
}

}  // namespace capmap

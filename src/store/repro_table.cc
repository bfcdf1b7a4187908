#include "store/repro_table.h"

#include <fmt/format.h>

#include "common/user_error.h"
#include "store/result_store.h"

namespace capmap {

ReproTable ReproTable::open(const std::filesystem::path& store) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(store, ec)) {
    throw UserError(fmt::format("{}: no such results store", store.string()));
  }
  // Refuses (changing nothing) a file that is not a capmap store.
  ResultStore::check_existing(store);
  SqliteDatabase db(store, SQLITE_OPEN_READWRITE);
  db.exec(kReproTableSql);
  return ReproTable(std::move(db));
}

ReproTable::ReproTable(SqliteDatabase db) : db_(std::move(db)) {}

void ReproTable::put(const ReproResult& result) {
  db_.prepare(
         "INSERT OR REPLACE INTO repro(run_key, case_name, path, record_created, reproduced, "
         "outcome, script, checked) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
      .bind(1, result.run_key)
      .bind(2, result.case_name)
      .bind(3, result.path)
      .bind(4, result.record_created)
      .bind(5, static_cast<std::int64_t>(result.reproduced ? 1 : 0))
      .bind(6, result.outcome)
      .bind(7, result.script)
      .bind(8, utc_timestamp())
      .run();
}

}  // namespace capmap

#pragma once
// The `repro` table of a results store: whether the repro script of each
// failing case × path reproduced its record outside capmap. `capmap repro
// --check` writes it (creating it in a store that has none); merge reads it.
// Each row names the record it checked by the record's `created` time, so a
// record measured again is never shown with the verdict of the old one.
#include <filesystem>
#include <string>

#include "store/sqlite_database.h"

namespace capmap {

inline constexpr const char* kReproTableSql = R"sql(
CREATE TABLE IF NOT EXISTS repro(run_key TEXT, case_name TEXT, path TEXT, record_created TEXT,
                                 reproduced INTEGER, outcome TEXT, script TEXT, checked TEXT,
                                 PRIMARY KEY(run_key, case_name, path));
)sql";

struct ReproResult {
  std::string run_key, case_name, path;
  std::string record_created;  // `created` of the record the script was checked against
  bool reproduced = false;
  std::string outcome;  // what the script came to: "checker-fail (ValidationError): ..."
  std::string script;   // the script's text
};

class ReproTable {
 public:
  // Opens an existing results store for writing its repro rows; UserError
  // naming the file when it is missing or not a capmap store.
  static ReproTable open(const std::filesystem::path& store);

  // Commits one row at once (replacing an earlier check of the same cell).
  void put(const ReproResult& result);

 private:
  explicit ReproTable(SqliteDatabase db);
  SqliteDatabase db_;
};

}  // namespace capmap

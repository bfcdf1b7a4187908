#include "store/store_reader.h"

#include <fmt/format.h>

#include <cstdio>

#include "common/user_error.h"

namespace capmap {
namespace {

SqliteDatabase open_read_only(const std::filesystem::path& file) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) {
    throw UserError(fmt::format("{}: no such store", file.string()));
  }
  return SqliteDatabase(file, SQLITE_OPEN_READONLY, "cannot open store");
}

}  // namespace

StoreReader::StoreReader(const std::filesystem::path& file)
    : file_(file), db_(open_read_only(file)) {
  // One read transaction for the reader's whole life: every query below sees the
  // store as it was at the first one, so a merge while a run writes reads a
  // consistent snapshot (WAL keeps it while the writer goes on committing).
  db_.exec("BEGIN");
  // A file that is not SQLite, or SQLite without our tables, fails here.
  std::optional<SqliteStatement> meta;
  try {
    meta.emplace(db_.prepare("SELECT value FROM meta WHERE key = 'schema_version'"));
  } catch (const UserError&) {
    throw UserError(fmt::format("{}: not a capmap results store", file.string()));
  }
  std::string version = meta->step() ? meta->text(0) : std::string();
  if (version != "1") {
    throw UserError(fmt::format("{}: unsupported store schema version '{}' (expected 1)",
                                file.string(), version));
  }
}

bool StoreReader::has_table(const char* name) {
  auto exists = db_.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1",
                            "cannot read the table list");
  exists.bind(1, std::string_view(name));
  return exists.step();
}

std::vector<nlohmann::json> StoreReader::json_column(const char* sql, const std::string& run_key,
                                                     const char* what) {
  auto stmt = db_.prepare(sql, fmt::format("cannot read {}", what));
  stmt.bind(1, run_key);
  std::vector<nlohmann::json> rows;
  while (stmt.step()) {
    std::string text = stmt.text(0);
    auto parsed = nlohmann::json::parse(text, nullptr, false);
    if (parsed.is_discarded()) {
      throw UserError(fmt::format("{}: {} is not valid JSON: {:.80}", file_.string(), what, text));
    }
    rows.push_back(std::move(parsed));
  }
  return rows;
}

std::vector<StoredRun> StoreReader::runs() {
  auto stmt =
      db_.prepare("SELECT run_key, info, created FROM runs ORDER BY run_key", "cannot read runs");
  std::vector<StoredRun> runs;
  while (stmt.step()) {
    StoredRun run;
    run.run_key = stmt.text(0);
    run.info = nlohmann::json::parse(stmt.text(1), nullptr, false);
    if (run.info.is_discarded() || !run.info.is_object()) {
      throw UserError(
          fmt::format("{}: run {} has malformed info JSON", file_.string(), run.run_key));
    }
    run.created = stmt.text(2);
    runs.push_back(std::move(run));
  }
  return runs;
}

std::map<CasePath, ReproResult> StoreReader::repro_checks(const std::string& run_key) {
  std::map<CasePath, ReproResult> checks;
  if (!has_table("repro")) return checks;
  auto stmt = db_.prepare(
      "SELECT case_name, path, record_created, reproduced, outcome, script "
      "FROM repro WHERE run_key = ?1",
      "cannot read repro checks");
  stmt.bind(1, run_key);
  while (stmt.step()) {
    ReproResult check;
    check.run_key = run_key;
    check.case_name = stmt.text(0);
    check.path = stmt.text(1);
    check.record_created = stmt.text(2);
    check.reproduced = stmt.integer(3) != 0;
    check.outcome = stmt.text(4);
    check.script = stmt.text(5);
    CasePath cell{check.case_name, check.path};
    checks[std::move(cell)] = std::move(check);
  }
  return checks;
}

std::vector<nlohmann::json> StoreReader::cases(const std::string& run_key) {
  return json_column("SELECT info FROM cases WHERE run_key = ?1 ORDER BY name", run_key,
                     "case inventory");
}

std::vector<nlohmann::json> StoreReader::excludes(const std::string& run_key) {
  return json_column("SELECT info FROM excludes WHERE run_key = ?1 ORDER BY name", run_key,
                     "excludes");
}

std::vector<StoredShard> StoreReader::shards(const std::string& run_key) {
  auto stmt = db_.prepare(
      "SELECT shard, shard_count, paths FROM shards WHERE run_key = ?1 "
      "ORDER BY shard_count, shard",
      "cannot read shards");
  stmt.bind(1, run_key);
  std::vector<StoredShard> shards;
  while (stmt.step()) {
    StoredShard shard;
    shard.shard = static_cast<int>(stmt.integer(0));
    shard.shard_count = static_cast<int>(stmt.integer(1));
    auto paths = nlohmann::json::parse(stmt.text(2), nullptr, false);
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

std::optional<std::vector<StoredSelection>> StoreReader::selections(const std::string& run_key) {
  if (!has_table("selections")) return std::nullopt;
  auto stmt = db_.prepare(
      "SELECT only, tags, shard, registry_cases, cases FROM selections "
      "WHERE run_key = ?1 ORDER BY shard, only, tags",
      "cannot read selections");
  stmt.bind(1, run_key);
  auto strings = [&](int column, const char* what) {
    auto list = nlohmann::json::parse(stmt.text(column), nullptr, false);
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
  while (stmt.step()) {
    StoredSelection row;
    row.only = strings(0, "only");
    row.tags = strings(1, "tags");
    std::string shard = stmt.text(2);
    if (std::sscanf(shard.c_str(), "%d/%d", &row.shard, &row.shard_count) != 2 || row.shard < 1 ||
        row.shard > row.shard_count) {
      throw UserError(fmt::format("{}: a selection of run {} has a malformed shard '{}'",
                                  file_.string(), run_key, shard));
    }
    row.registry_cases = stmt.integer(3);
    row.cases = stmt.integer(4);
    rows.push_back(std::move(row));
  }
  return rows;
}

void StoreReader::for_each_record(const std::string& run_key,
                                  const std::function<void(RecordRow&&)>& visit) {
  auto stmt = db_.prepare(
      "SELECT case_name, path, status, seconds, record, created FROM records "
      "WHERE run_key = ?1 ORDER BY case_name, path",
      "cannot read records");
  stmt.bind(1, run_key);
  while (stmt.step()) {
    RecordRow rec;
    rec.case_name = stmt.text(0);
    rec.path = stmt.text(1);
    rec.record = stmt.is_null(4) ? nlohmann::json::object()
                                 : nlohmann::json::parse(stmt.text(4), nullptr, false);
    if (rec.record.is_discarded() || !rec.record.is_object()) {
      throw UserError(fmt::format("{}: record {} / {} is not a JSON object", file_.string(),
                                  rec.case_name, rec.path));
    }
    // The columns are what the supervisor decided; they win over the JSON copy.
    rec.record["status"] = stmt.text(2);
    if (!stmt.is_null(3)) rec.record["seconds"] = stmt.real(3);
    rec.created = stmt.text(5);
    visit(std::move(rec));
  }
}

}  // namespace capmap

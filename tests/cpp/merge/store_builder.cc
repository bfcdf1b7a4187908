#include "store_builder.h"

#include <stdexcept>

namespace capmap::testing {

StoreBuilder::StoreBuilder(const std::filesystem::path& file) {
  if (sqlite3_open(file.c_str(), &db_) != SQLITE_OK) throw std::runtime_error("cannot open");
  exec(R"(PRAGMA journal_mode=WAL;
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS runs(run_key TEXT PRIMARY KEY, info TEXT, created TEXT);
CREATE TABLE IF NOT EXISTS cases(run_key TEXT, name TEXT, info TEXT, PRIMARY KEY(run_key, name));
CREATE TABLE IF NOT EXISTS excludes(run_key TEXT, name TEXT, info TEXT, PRIMARY KEY(run_key, name));
CREATE TABLE IF NOT EXISTS shards(run_key TEXT, shard INTEGER, shard_count INTEGER, paths TEXT,
  PRIMARY KEY(run_key, shard, shard_count));
CREATE TABLE IF NOT EXISTS records(run_key TEXT, case_name TEXT, path TEXT, status TEXT,
  seconds REAL, record TEXT, created TEXT, PRIMARY KEY(run_key, case_name, path));
CREATE TABLE IF NOT EXISTS dispatches(run_key TEXT, case_name TEXT, path TEXT, attempts INTEGER,
  PRIMARY KEY(run_key, case_name, path));
INSERT OR REPLACE INTO meta VALUES ('schema_version', '1');)");
}

StoreBuilder::~StoreBuilder() { sqlite3_close(db_); }

void StoreBuilder::exec(const std::string& sql) {
  char* error = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
    std::string message = error ? error : "?";
    sqlite3_free(error);
    throw std::runtime_error(message);
  }
}

namespace {

std::string quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    out += c;
    if (c == '\'') out += '\'';
  }
  return out + "'";
}

}  // namespace

void StoreBuilder::add_run(const std::string& run_key, const nlohmann::json& info,
                           const std::string& created) {
  exec("INSERT INTO runs VALUES (" + quote(run_key) + "," + quote(info.dump()) + "," +
       quote(created) + ")");
}

void StoreBuilder::add_case(const std::string& run_key, const nlohmann::json& info) {
  exec("INSERT INTO cases VALUES (" + quote(run_key) + "," + quote(info["name"]) + "," +
       quote(info.dump()) + ")");
}

void StoreBuilder::add_shard(const std::string& run_key, int shard, int shard_count,
                             const std::vector<std::string>& paths) {
  exec("INSERT INTO shards VALUES (" + quote(run_key) + "," + std::to_string(shard) + "," +
       std::to_string(shard_count) + "," + quote(nlohmann::json(paths).dump()) + ")");
}

void StoreBuilder::add_selection(const std::string& run_key, const std::vector<std::string>& only,
                                 const std::vector<std::string>& tags, const std::string& shard,
                                 long long registry_cases, long long cases) {
  exec(R"(CREATE TABLE IF NOT EXISTS selections(run_key TEXT, only TEXT, tags TEXT, shard TEXT,
  registry_cases INTEGER, cases INTEGER, PRIMARY KEY(run_key, only, tags, shard)))");
  exec("INSERT INTO selections VALUES (" + quote(run_key) + "," +
       quote(nlohmann::json(only).dump()) + "," + quote(nlohmann::json(tags).dump()) + "," +
       quote(shard) + "," + std::to_string(registry_cases) + "," + std::to_string(cases) + ")");
}

void StoreBuilder::add_record(const std::string& run_key, const std::string& case_name,
                              const std::string& path, const nlohmann::json& record,
                              const std::string& created) {
  exec("INSERT INTO records VALUES (" + quote(run_key) + "," + quote(case_name) + "," +
       quote(path) + "," + quote(record.at("status")) + "," +
       nlohmann::json(record.value("seconds", 0.5)).dump() + "," + quote(record.dump()) + "," +
       quote(created) + ")");
}

nlohmann::json make_case(const std::string& name, const std::string& group) {
  auto bracket = name.find('[');
  std::string op = name.substr(0, bracket);
  std::string variant =
      bracket == std::string::npos ? "" : name.substr(bracket + 1, name.size() - bracket - 2);
  auto dot = group.find('.');
  return {{"name", name},
          {"operator", op},
          {"variant", variant},
          {"group", group},
          {"package", group.substr(0, dot)},
          {"section", dot == std::string::npos ? "" : group.substr(dot + 1)},
          {"note", ""},
          {"ref", "kornia." + op},
          {"where", "registries/kornia/x.py:1"},
          {"tags", nlohmann::json::array()},
          {"skip", nullptr},
          {"check", true},
          {"atol", 2e-4},
          {"rtol", 1e-3}};
}

nlohmann::json make_run_info(const std::string& torch_version) {
  return {{"library",
           {{"name", "kornia"},
            {"version", "0.9.0"},
            {"revision", "abc123"},
            {"source_url", "https://github.com/kornia/kornia"},
            {"docs_url", "https://kornia.readthedocs.io"}}},
          {"versions",
           {{"torch", torch_version},
            {"onnx", "1.23.2"},
            {"onnxruntime", "1.32.0"},
            {"onnxscript", "0.7.2"},
            {"python", "3.11.9"}}},
          {"settings", {{"opset", 18}, {"export_strict", false}}},
          {"device", "cpu"},
          {"cpu", "Test CPU"},
          {"cores", 2}};
}

}  // namespace capmap::testing

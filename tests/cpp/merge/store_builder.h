#pragma once
// Writes small results stores with the schema of docs/reference/store.md, independent
// of src/store, so merge is tested against the contract itself.
#include <sqlite3.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace capmap::testing {

class StoreBuilder {
 public:
  explicit StoreBuilder(const std::filesystem::path& file);
  ~StoreBuilder();
  StoreBuilder(const StoreBuilder&) = delete;
  StoreBuilder& operator=(const StoreBuilder&) = delete;

  void add_run(const std::string& run_key, const nlohmann::json& info, const std::string& created);
  void add_case(const std::string& run_key, const nlohmann::json& info);
  void add_shard(const std::string& run_key, int shard, int shard_count,
                 const std::vector<std::string>& paths);
  // Adds the `selections` table the first time (stores written before it had none).
  void add_selection(const std::string& run_key, const std::vector<std::string>& only,
                     const std::vector<std::string>& tags, const std::string& shard,
                     long long registry_cases, long long cases);
  void add_record(const std::string& run_key, const std::string& case_name, const std::string& path,
                  const nlohmann::json& record,
                  const std::string& created = "2026-01-02T03:04:05Z");
  void exec(const std::string& sql);

 private:
  sqlite3* db_ = nullptr;
};

// A CASE inventory entry as the worker describes it.
nlohmann::json make_case(const std::string& name, const std::string& group);
// Run info with the given torch version.
nlohmann::json make_run_info(const std::string& torch_version = "2.13.0");

}  // namespace capmap::testing

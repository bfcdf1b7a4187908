#pragma once
// A baseline snapshot for `merge --baseline` and `run --baseline`: the results
// a merge carries over for the case × paths its stores lack (a pull request's
// run measures only the cases its change can affect).
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace capmap {

class Baseline {
 public:
  // Throws UserError naming the file when it is unreadable or not a snapshot.
  explicit Baseline(const std::filesystem::path& file);

  const std::string& name() const { return name_; }
  const nlohmann::json& snapshot() const { return snapshot_; }
  std::string generated_at() const;
  // The case entry of that name, or null.
  const nlohmann::json* find_case(const std::string& name) const;
  // The result of a case × path to carry over: a copy marked `carried` and
  // `carried_from` (the baseline's generated_at), or null when the baseline has
  // none (or only a `missing` one).
  std::optional<nlohmann::json> carried_record(const std::string& name,
                                               const std::string& path) const;

 private:
  std::string name_;
  nlohmann::json snapshot_;
  std::map<std::string, const nlohmann::json*> cases_;
};

}  // namespace capmap

#pragma once
// Counts over a classified snapshot: failures per category and cause, and the
// failures no rule explains grouped by their signature (failure_signature.h).
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace capmap {

struct CauseCount {
  std::string category;
  std::string cause;
  std::size_t count = 0;
};

struct UnclassifiedGroup {
  std::string signature;
  std::size_t count = 0;
  std::string example_case;
  std::string example_path;  // "compile (graph break)" for a break reason
  std::string example_message;
};

struct CauseSummary {
  std::size_t failures = 0;  // paths whose page status is fail, mismatch, crashed, timeout or oom
  std::size_t unclassified = 0;
  std::vector<CauseCount> causes;                      // by category, then count (most first)
  std::vector<UnclassifiedGroup> unclassified_groups;  // most first; breaks included
};

CauseSummary summarise_causes(const nlohmann::json& cases);

}  // namespace capmap

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
  std::size_t count = 0;        // failing cells plus graph break reasons
  std::size_t break_count = 0;  // of which graph break reasons
  std::string example_case;
  std::string example_path;  // "compile (graph break)" for a break reason
  std::string example_message;
};

struct CauseSummary {
  std::size_t failures = 0;  // paths whose page status is fail, mismatch, crashed, timeout or oom
  std::size_t unclassified = 0;         // failing cells no rule explains
  std::size_t break_reasons = 0;        // graph break reasons of every path (ok ones too)
  std::size_t unclassified_breaks = 0;  // of which no rule explains
  std::vector<CauseCount> causes;       // by category, then count (most first)
  std::vector<UnclassifiedGroup> unclassified_groups;  // most first; breaks included
};

CauseSummary summarise_causes(const nlohmann::json& cases);

}  // namespace capmap

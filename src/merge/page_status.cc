#include "merge/page_status.h"

#include <array>
#include <utility>

namespace capmap {

std::string page_status(std::string_view raw_status) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 19> kMapping{{
      {"ok", "ok"},
      {"ok-breaks", "ok-breaks"},
      {"ok-unverified", "ok-unverified"},
      {"constant", "constant"},  // captured, but no input reaches the graph
      {"mismatch", "mismatch"},
      {"specialized", "specialized"},  // dynamic shapes: exported, but some size was pinned
      {"fail", "fail"},
      {"export-fail", "fail"},
      {"checker-fail", "fail"},
      {"ort-load-fail", "fail"},
      {"ort-run-fail", "fail"},
      {"crashed", "crashed"},
      {"timeout", "timeout"},
      {"oom", "oom"},
      {"skipped", "n/a"},
      {"eager-fail", "n/a"},
      {"no-tensor-output", "n/a"},
      {"n/a", "n/a"},
      {"missing", "n/a"},  // forced merge: never measured
  }};
  for (const auto& [raw, shown] : kMapping) {
    if (raw == raw_status) return std::string(shown);
  }
  return "fail";
}

bool is_supported(std::string_view status) {
  return status == "ok" || status == "ok-breaks" || status == "ok-unverified";
}

}  // namespace capmap

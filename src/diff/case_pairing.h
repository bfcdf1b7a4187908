#pragma once
// Which case of one side `capmap diff` compares with which case of the other.
// Two snapshots pair by name. A snapshot and Kornia's data file name their cases
// differently, so they pair by package, operator and variant (see
// diff/case_identity.h), and only where that leaves no doubt.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace capmap {

enum class PairRule {
  kSameName,           // the same name (against Kornia's file: and package, operator, variant)
  kSameVariant,        // same package and operator, the same variant
  kEquivalentVariant,  // same package and operator, the variant worded otherwise
  kOnlyCase,           // the one case of that package and operator on each side
};

struct CasePair {
  const nlohmann::json* old_case;
  const nlohmann::json* new_case;
  PairRule rule;
};

// Why a case has no partner, for the reader who expected one.
enum class UnpairedReason {
  kNoSuchName,         // by name: the other side has no case of that name
  kNoSuchOperator,     // the other side has no case of that package and operator
  kNoMatchingVariant,  // it has, but none whose variant agrees (or more than one does)
};

struct UnpairedCase {
  const nlohmann::json* entry;
  UnpairedReason reason;
};

struct CasePairing {
  std::vector<CasePair> pairs;
  std::vector<UnpairedCase> only_old, only_new;
};

CasePairing pair_cases_by_name(const nlohmann::json& old_snapshot,
                               const nlohmann::json& new_snapshot);

// A pair is made when package and operator agree and either the names and the
// variants are the same, or the variants agree (the same, or worded otherwise)
// with no second candidate on either side, or each side has exactly one case of
// that package and operator. A case whose operator the other side lacks is tried
// once more as a method written as a variant (`KMeans.fit` ~ `KMeans[fit]`) and
// under its `ref`'s name (`sepia` ~ `sepia_from_rgb`), with agreeing variants only.
CasePairing pair_cases_by_identity(const nlohmann::json& old_snapshot,
                                   const nlohmann::json& new_snapshot);

}  // namespace capmap

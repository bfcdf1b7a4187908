#include "diff/case_pairing.h"

#include <cctype>
#include <map>
#include <optional>

#include "diff/case_identity.h"

namespace capmap {
namespace {

std::string library_name(const nlohmann::json& snapshot) {
  const auto& header = snapshot.at("header");
  auto library = header.find("library");
  if (library == header.end() || !library->is_object()) return "";
  auto name = library->find("name");
  return name != library->end() && name->is_string() ? name->get<std::string>() : "";
}

// One side's cases, what each measures and whether it has found its partner.
struct Side {
  std::vector<const nlohmann::json*> cases;
  std::vector<CaseIdentity> identities;
  std::vector<bool> paired;
  std::map<std::string, std::vector<std::size_t>> by_operator;

  explicit Side(const nlohmann::json& snapshot) {
    const std::string library = library_name(snapshot);
    for (const auto& entry : snapshot.at("cases")) {
      cases.push_back(&entry);
      identities.push_back(case_identity(entry, library));
    }
    paired.assign(cases.size(), false);
    index();
  }

  void index() {
    by_operator.clear();
    for (std::size_t i = 0; i < identities.size(); ++i) {
      by_operator[identities[i].op].push_back(i);
    }
  }

  // Cases of that operator whose package may be `identity`'s.
  std::vector<std::size_t> of_operator(const CaseIdentity& identity, bool unpaired_only) const {
    std::vector<std::size_t> out;
    auto it = by_operator.find(identity.op);
    if (it == by_operator.end()) return out;
    for (std::size_t i : it->second) {
      if (unpaired_only && paired[i]) continue;
      if (packages_compatible(identities[i], identity)) out.push_back(i);
    }
    return out;
  }

  bool has_operator(const std::string& op) const { return by_operator.count(op) > 0; }
};

using VariantsAgree = bool (*)(const std::vector<std::string>&, const std::vector<std::string>&);

// The one unpaired case of `side` that agrees with `identity`, if there is exactly one.
std::optional<std::size_t> sole_agreeing(const Side& side, const CaseIdentity& identity,
                                         VariantsAgree agree) {
  std::optional<std::size_t> found;
  for (std::size_t i : side.of_operator(identity, true)) {
    if (!agree(side.identities[i].variant, identity.variant)) continue;
    if (found) return std::nullopt;
    found = i;
  }
  return found;
}

// Pairs every old case whose variant agrees with exactly one new case's, and
// that case's with its own only; repeats until nothing more pairs, as a pair
// made can leave a neighbour with a single candidate.
void pair_agreeing(Side& old_side, Side& new_side, VariantsAgree agree, PairRule rule,
                   std::vector<CasePair>& pairs) {
  bool paired_any = true;
  while (paired_any) {
    paired_any = false;
    for (std::size_t i = 0; i < old_side.cases.size(); ++i) {
      if (old_side.paired[i]) continue;
      auto j = sole_agreeing(new_side, old_side.identities[i], agree);
      if (!j) continue;
      auto back = sole_agreeing(old_side, new_side.identities[*j], agree);
      if (!back || *back != i) continue;
      old_side.paired[i] = new_side.paired[*j] = true;
      pairs.push_back({old_side.cases[i], new_side.cases[*j], rule});
      paired_any = true;
    }
  }
}

// Cases of the same name that also agree in package, operator and variant pair
// first: a file `merge --kornia-json` wrote keeps capmap's names, and a name is
// the surest tie-break between cases that are otherwise alike.
void pair_same_names(Side& old_side, Side& new_side, std::vector<CasePair>& pairs) {
  std::map<std::string, std::size_t> new_by_name;
  for (std::size_t j = 0; j < new_side.cases.size(); ++j) {
    new_by_name.emplace(new_side.cases[j]->at("name").get<std::string>(), j);
  }
  for (std::size_t i = 0; i < old_side.cases.size(); ++i) {
    auto it = new_by_name.find(old_side.cases[i]->at("name").get<std::string>());
    if (it == new_by_name.end() || new_side.paired[it->second]) continue;
    const CaseIdentity& a = old_side.identities[i];
    const CaseIdentity& b = new_side.identities[it->second];
    if (a.op != b.op || !packages_compatible(a, b) || !same_variant(a.variant, b.variant)) continue;
    old_side.paired[i] = new_side.paired[it->second] = true;
    pairs.push_back({old_side.cases[i], new_side.cases[it->second], PairRule::kSameName});
  }
}

// Each side has exactly one case of that package and operator: they pair
// whatever their variants (the diff reports the difference).
void pair_only_cases(Side& old_side, Side& new_side, std::vector<CasePair>& pairs) {
  for (std::size_t i = 0; i < old_side.cases.size(); ++i) {
    if (old_side.paired[i]) continue;
    auto candidates = new_side.of_operator(old_side.identities[i], false);
    if (candidates.size() != 1 || new_side.paired[candidates[0]]) continue;
    std::size_t j = candidates[0];
    if (old_side.of_operator(new_side.identities[j], false).size() != 1) continue;
    old_side.paired[i] = new_side.paired[j] = true;
    pairs.push_back({old_side.cases[i], new_side.cases[j], PairRule::kOnlyCase});
  }
}

// A case whose operator the other side lacks, named as the other side might:
// a method as a variant of its class, or the function its `ref` names.
std::optional<CaseIdentity> alternative(const CaseIdentity& identity, const Side& own,
                                        const Side& other) {
  if (other.has_operator(identity.op)) return std::nullopt;
  auto dot = identity.op.rfind('.');
  if (dot != std::string::npos && dot + 1 < identity.op.size() &&
      std::islower(static_cast<unsigned char>(identity.op[dot + 1]))) {
    std::string owner = identity.op.substr(0, dot);
    if (other.has_operator(owner)) {
      CaseIdentity as_variant = identity;
      as_variant.op = owner;
      as_variant.variant.insert(as_variant.variant.begin(), identity.op.substr(dot + 1));
      return as_variant;
    }
  }
  if (!identity.ref_name.empty()) {
    std::string aliased = operator_key(identity.ref_name);
    // Only where the alias is free on this side: `average_endpoint_error` (ref `aepe`)
    // must not compete with this side's own `aepe` cases.
    if (aliased != identity.op && other.has_operator(aliased) && !own.has_operator(aliased)) {
      CaseIdentity under_ref = identity;
      under_ref.op = aliased;
      return under_ref;
    }
  }
  return std::nullopt;
}

// Gives the unpaired cases whose operator the other side lacks their alternative
// identity, so the variant passes can run once more.
void rekey_unpaired(Side& side, const Side& other) {
  std::vector<CaseIdentity> rekeyed = side.identities;
  for (std::size_t i = 0; i < side.cases.size(); ++i) {
    if (side.paired[i]) continue;
    if (auto alt = alternative(side.identities[i], side, other)) rekeyed[i] = *alt;
  }
  side.identities = std::move(rekeyed);
  side.index();
}

// Why each case of `side` has no partner, read only for those that end without one.
std::vector<UnpairedReason> reasons(const Side& side, const Side& other) {
  std::vector<UnpairedReason> out;
  for (std::size_t i = 0; i < side.cases.size(); ++i) {
    bool known = !other.of_operator(side.identities[i], false).empty();
    out.push_back(known ? UnpairedReason::kNoMatchingVariant : UnpairedReason::kNoSuchOperator);
  }
  return out;
}

std::vector<UnpairedCase> unpaired(const Side& side, const std::vector<UnpairedReason>& why) {
  std::vector<UnpairedCase> out;
  for (std::size_t i = 0; i < side.cases.size(); ++i) {
    if (!side.paired[i]) out.push_back({side.cases[i], why[i]});
  }
  return out;
}

}  // namespace

CasePairing pair_cases_by_name(const nlohmann::json& old_snapshot,
                               const nlohmann::json& new_snapshot) {
  std::map<std::string, const nlohmann::json*> new_by_name;
  for (const auto& entry : new_snapshot.at("cases")) new_by_name.emplace(entry.at("name"), &entry);
  CasePairing pairing;
  std::map<std::string, bool> matched;
  for (const auto& entry : old_snapshot.at("cases")) {
    auto it = new_by_name.find(entry.at("name"));
    if (it == new_by_name.end()) {
      pairing.only_old.push_back({&entry, UnpairedReason::kNoSuchName});
      continue;
    }
    pairing.pairs.push_back({&entry, it->second, PairRule::kSameName});
    matched[it->first] = true;
  }
  for (const auto& entry : new_snapshot.at("cases")) {
    if (!matched.count(entry.at("name"))) {
      pairing.only_new.push_back({&entry, UnpairedReason::kNoSuchName});
    }
  }
  return pairing;
}

CasePairing pair_cases_by_identity(const nlohmann::json& old_snapshot,
                                   const nlohmann::json& new_snapshot) {
  Side old_side(old_snapshot), new_side(new_snapshot);
  CasePairing pairing;
  pair_same_names(old_side, new_side, pairing.pairs);
  pair_agreeing(old_side, new_side, same_variant, PairRule::kSameVariant, pairing.pairs);
  pair_agreeing(old_side, new_side, equivalent_variant, PairRule::kEquivalentVariant,
                pairing.pairs);
  pair_only_cases(old_side, new_side, pairing.pairs);

  // The reasons are taken before the second try renames cases.
  const auto old_reasons = reasons(old_side, new_side);
  const auto new_reasons = reasons(new_side, old_side);
  Side old_renamed = old_side, new_renamed = new_side;
  rekey_unpaired(old_renamed, new_side);
  rekey_unpaired(new_renamed, old_side);
  pair_agreeing(old_renamed, new_renamed, same_variant, PairRule::kSameVariant, pairing.pairs);
  pair_agreeing(old_renamed, new_renamed, equivalent_variant, PairRule::kEquivalentVariant,
                pairing.pairs);
  pairing.only_old = unpaired(old_renamed, old_reasons);
  pairing.only_new = unpaired(new_renamed, new_reasons);
  return pairing;
}

}  // namespace capmap

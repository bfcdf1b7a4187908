#pragma once
// What a case measures, as far as two surveys written apart can agree on it:
// the package, the operator and the variant. Kornia's data file and a capmap
// snapshot name the same operator differently (`siftdesc.sift_describe` and
// `sift_describe`, `Normalize` in kornia.augmentation and `augmentation.Normalize`),
// and word the same variant differently (`no_hysteresis`, `hysteresis=False`).
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace capmap {

struct CaseIdentity {
  std::string package;  // top-level package without the library, e.g. "geometry"; "" unknown
  std::string op;       // operator without module prefixes or dunders, e.g. "Quaternion.mul"
  std::vector<std::string> variant;  // the variant's parts, e.g. {"mode=nearest", "batch=2"}
  std::string ref_name;  // the last part of the case's `ref`, e.g. "sepia_from_rgb"; "" none
};

// A case of either layout. `library` is the surveyed library's name ("kornia"),
// stripped from the front of a package such as "kornia.geometry".
CaseIdentity case_identity(const nlohmann::json& entry, const std::string& library);

// The operator with leading module parts ("siftdesc.", "augmentation.") dropped
// and dunder method names undecorated ("__mul__" → "mul").
std::string operator_key(const std::string& op);

// A variant split at top-level commas and brackets: "a, b" and "[a][b]" both give {"a", "b"};
// "topk=(1,5)" stays one part.
std::vector<std::string> variant_parts(const std::string& variant);

// Both packages known and different: the only way packages disagree.
bool packages_compatible(const CaseIdentity& a, const CaseIdentity& b);

// The same parts, letter case, `_` and `-` aside.
bool same_variant(const std::vector<std::string>& a, const std::vector<std::string>& b);

// Each part of one has a matching part in the other, one to one, where a bare
// word matches a `key=value` part by its value ("nearest" ~ "mode=nearest"), by
// key and value run together ("order2" ~ "order=2"), or as a flag ("antialias" ~
// "antialias=True", "no_clip" ~ "clip=False").
bool equivalent_variant(const std::vector<std::string>& a, const std::vector<std::string>& b);

// "a,b" for display; "(default)" for none.
std::string variant_text(const std::vector<std::string>& variant);

}  // namespace capmap

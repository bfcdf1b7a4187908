#include "diff/case_identity.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <string_view>
#include <utility>

namespace capmap {
namespace {

std::string text_field(const nlohmann::json& entry, const char* key) {
  auto it = entry.find(key);
  return it != entry.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    std::size_t end = text.find(separator, start);
    parts.push_back(text.substr(start, end - start));
    if (end == std::string::npos) return parts;
    start = end + 1;
  }
}

std::string trimmed(const std::string& text) {
  auto first = text.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

// Lower case without `_`, `-` or spaces: how two surveys' spellings of one word meet.
std::string canonical(const std::string& part) {
  std::string out;
  for (char ch : part) {
    if (ch == '_' || ch == '-' || ch == ' ') continue;
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  }
  return out;
}

std::string package_key(std::string package, const std::string& library) {
  if (!library.empty() && package.starts_with(library + ".")) {
    package = package.substr(library.size() + 1);
  }
  return package.substr(0, package.find('.'));
}

bool is_dunder(const std::string& name) {
  return name.size() > 4 && name.starts_with("__") && name.ends_with("__");
}

// Words two surveys use for one setting. "live" is how Kornia's file says an
// argument is passed as a tensor input, "pixel" that coordinates are not
// normalised, "nonsep" that a filter is not separable, "bg" a background colour.
std::string unaliased(const std::string& part) {
  static const std::pair<const char*, const char*> kAliases[] = {
      {"live", "tensor"},
      {"pixel", "normalizedcoordinates=false"},
      {"nonsep", "separable=false"},
      {"bg", "backgroundcolor"},
  };
  const std::string whole = canonical(part);
  for (const auto& [alias, meaning] : kAliases) {
    if (whole == alias) return meaning;
  }
  // An alias as one word of several ("live_sigma" → "tensorsigma"), where it means a value.
  std::string out;
  for (const auto& word : split(part, '_')) {
    std::string canonical_word = canonical(word);
    for (const auto& [alias, meaning] : kAliases) {
      if (canonical_word == alias &&
          std::string_view(meaning).find('=') == std::string_view::npos) {
        canonical_word = meaning;
      }
    }
    out += canonical_word;
  }
  return out;
}

// A bare word against a `key=value` part (both canonical).
bool word_matches_setting(const std::string& word, const std::string& setting) {
  auto equals = setting.find('=');
  std::string key = setting.substr(0, equals), value = setting.substr(equals + 1);
  if (key.empty() || value.empty()) return false;
  if (value == "true") return word == key;
  if (value == "false") return word == "no" + key || word == "non" + key || word == "un" + key;
  // "nearest" ~ "mode=nearest", "order2" ~ "order=2", "tensor_sigma" ~ "sigma=tensor".
  return word == value || word == key + value || word == value + key;
}

// Two bare words where one is a whole `_`-separated end of the other: "mask" ~
// "valid_mask", "inverse" ~ "return_inverse", "normalize" ~ "normalize_points".
bool word_is_end_of(const std::string& shorter, const std::string& longer) {
  if (shorter.empty() || shorter.size() >= longer.size()) return false;
  auto lower = [](std::string text) {
    for (char& ch : text) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return text;
  };
  const std::string s = lower(shorter), l = lower(longer);
  if (s.find_first_of("_= ") != std::string::npos) return false;
  return (l.starts_with(s) && l[s.size()] == '_') ||
         (l.ends_with(s) && l[l.size() - s.size() - 1] == '_');
}

bool parts_match(const std::string& a, const std::string& b) {
  std::string ca = unaliased(a), cb = unaliased(b);
  if (ca == cb) return true;
  bool a_setting = ca.find('=') != std::string::npos;
  bool b_setting = cb.find('=') != std::string::npos;
  if (a_setting && b_setting) return false;  // two settings that differ
  if (!a_setting && !b_setting) return word_is_end_of(a, b) || word_is_end_of(b, a);
  return a_setting ? word_matches_setting(cb, ca) : word_matches_setting(ca, cb);
}

}  // namespace

std::string operator_key(const std::string& op) {
  std::vector<std::string> parts = split(op, '.');
  std::size_t first = 0;
  while (parts.size() - first > 1 && !parts[first].empty() &&
         std::islower(static_cast<unsigned char>(parts[first][0]))) {
    ++first;
  }
  std::string key;
  for (std::size_t i = first; i < parts.size(); ++i) {
    std::string part = is_dunder(parts[i]) ? parts[i].substr(2, parts[i].size() - 4) : parts[i];
    key += (i == first ? "" : ".") + part;
  }
  return key;
}

std::vector<std::string> variant_parts(const std::string& variant) {
  std::vector<std::string> parts;
  std::string current;
  int depth = 0;
  auto flush = [&] {
    if (auto part = trimmed(current); !part.empty()) parts.push_back(part);
    current.clear();
  };
  for (char ch : variant) {
    if (ch == '(' || ch == '{') ++depth;
    if ((ch == ')' || ch == '}') && depth > 0) --depth;
    if (depth == 0 && (ch == ',' || ch == '[' || ch == ']')) {
      flush();
      continue;
    }
    current += ch;
  }
  flush();
  return parts;
}

CaseIdentity case_identity(const nlohmann::json& entry, const std::string& library) {
  CaseIdentity identity;
  std::string package = text_field(entry, "package");
  if (package.empty()) package = text_field(entry, "group");
  identity.package = package_key(package, library);

  const std::string name = text_field(entry, "name");
  const auto bracket = name.find('[');
  std::string op = text_field(entry, "operator");
  if (op.empty()) op = name.substr(0, bracket);
  identity.op = operator_key(op);

  // A case that names its variant is taken at its word; an older one at its name's.
  if (auto variant = entry.find("variant"); variant != entry.end() && variant->is_string()) {
    identity.variant = variant_parts(variant->get<std::string>());
  } else if (bracket != std::string::npos) {
    identity.variant = variant_parts(name.substr(bracket));
  }

  const std::string ref = text_field(entry, "ref");
  if (!ref.empty()) identity.ref_name = ref.substr(ref.rfind('.') + 1);
  return identity;
}

bool packages_compatible(const CaseIdentity& a, const CaseIdentity& b) {
  return a.package.empty() || b.package.empty() || a.package == b.package;
}

bool same_variant(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  if (a.size() != b.size()) return false;
  std::vector<std::string> ca, cb;
  for (const auto& part : a) ca.push_back(canonical(part));
  for (const auto& part : b) cb.push_back(canonical(part));
  std::sort(ca.begin(), ca.end());
  std::sort(cb.begin(), cb.end());
  return ca == cb;
}

bool equivalent_variant(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  if (a.size() != b.size()) return false;
  // A one-to-one match of the parts; variants have a handful of parts, so trying
  // every assignment is cheap.
  std::vector<bool> taken(b.size(), false);
  std::function<bool(std::size_t)> match_from = [&](std::size_t i) {
    if (i == a.size()) return true;
    for (std::size_t j = 0; j < b.size(); ++j) {
      if (taken[j] || !parts_match(a[i], b[j])) continue;
      taken[j] = true;
      if (match_from(i + 1)) return true;
      taken[j] = false;
    }
    return false;
  };
  return match_from(0);
}

std::string variant_text(const std::vector<std::string>& variant) {
  if (variant.empty()) return "(default)";
  std::string out;
  for (const auto& part : variant) out += (out.empty() ? "" : ",") + part;
  return out;
}

}  // namespace capmap

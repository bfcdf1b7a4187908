#include "store/run_difference.h"

#include <fmt/format.h>

#include <map>
#include <set>

namespace capmap {
namespace {

using json = nlohmann::json;

std::string plain(const json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

// "library.name", "versions.torch", "settings.opset" → value, for the fields that count.
std::map<std::string, json> flat_fields(const json& environment,
                                        const std::vector<std::string>& library_fields) {
  std::map<std::string, json> out;
  const json library = environment.value("library", json::object());
  for (const auto& field : library_fields) {
    out["library." + field] = library.is_object() ? library.value(field, json()) : json();
  }
  for (const char* part : {"versions", "settings"}) {
    const json values = environment.value(part, json::object());
    if (!values.is_object()) continue;
    for (const auto& [key, value] : values.items()) out[std::string(part) + "." + key] = value;
  }
  return out;
}

}  // namespace

std::vector<std::string> environment_differences(const json& a, const json& b,
                                                 const std::vector<std::string>& library_fields,
                                                 const std::set<std::string>& ignored) {
  const auto flat_a = flat_fields(a, library_fields), flat_b = flat_fields(b, library_fields);
  std::set<std::string> keys;
  for (const auto& [key, value] : flat_a) keys.insert(key);
  for (const auto& [key, value] : flat_b) keys.insert(key);
  std::vector<std::string> out;
  for (const auto& key : keys) {
    if (ignored.count(key)) continue;
    auto in_a = flat_a.find(key), in_b = flat_b.find(key);
    json va = in_a == flat_a.end() ? json() : in_a->second;
    json vb = in_b == flat_b.end() ? json() : in_b->second;
    if (va == vb) continue;
    std::string name = key.starts_with("versions.") ? key.substr(9) : key;
    out.push_back(fmt::format("{} {} vs {}", name, plain(va), plain(vb)));
  }
  return out;
}

std::string version_difference(const json& a, const json& b) {
  // The package version moves every file at once (a release installed from an index,
  // where no --changed can name them); the revision moves with every edit. A library
  // without a package version (sources on the path) is versioned by its revision:
  // then the files say what changed, not the version.
  auto by_revision = [](const json& environment) {
    const json library = environment.value("library", json::object());
    if (!library.is_object()) return false;
    const json version = library.value("version", json());
    return version.is_string() && !version.get<std::string>().empty() &&
           version == library.value("revision", json());
  };
  static const std::vector<std::string> kNameOnly = {"name"};
  const auto& fields = by_revision(a) && by_revision(b) ? kNameOnly : kReleaseLibraryFields;
  // A package only one side has (ExecuTorch in its own environment) decides only the cells of
  // the paths that need it, which the other side cannot have measured: it separates nothing.
  auto installed = [](const json& environment) {
    std::set<std::string> names;
    const json versions = environment.value("versions", json::object());
    if (!versions.is_object()) return names;
    for (const auto& [name, version] : versions.items()) {
      if (!version.is_null() && name != "torch" && name != "python") names.insert(name);
    }
    return names;
  };
  const std::set<std::string> in_a = installed(a), in_b = installed(b);
  std::set<std::string> one_sided;
  for (const auto& name : in_a) {
    if (!in_b.count(name)) one_sided.insert("versions." + name);
  }
  for (const auto& name : in_b) {
    if (!in_a.count(name)) one_sided.insert("versions." + name);
  }
  std::string out;
  for (const auto& change : environment_differences(a, b, fields, one_sided)) {
    out += (out.empty() ? "" : ", ") + change;
  }
  return out;
}

}  // namespace capmap

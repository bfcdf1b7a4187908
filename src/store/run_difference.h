#pragma once
// What separates two environments (a run's info, a snapshot's header: each with
// `library`, `versions` and `settings`), in words: "torch 2.12.0 vs 2.13.0".
// The one place that compares environments; callers choose which library
// fields count.
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

namespace capmap {

// The library fields the run key holds: name and revision (every edit moves the revision).
inline const std::vector<std::string> kRunKeyLibraryFields = {"name", "revision"};
// The library fields a release is known by: name and version.
inline const std::vector<std::string> kReleaseLibraryFields = {"name", "version"};

// "NAME A vs B" for each of the library fields named, each package version and each
// setting that differs, in name order ("library.revision", "torch", "settings.opset"), but
// the flat keys `ignored` names ("versions.executorch").
std::vector<std::string> environment_differences(const nlohmann::json& a, const nlohmann::json& b,
                                                 const std::vector<std::string>& library_fields,
                                                 const std::set<std::string>& ignored = {});

// "torch 2.12.0 vs 2.13.0": what separates two runs (library name and package
// version, versions, settings) apart from the library revision, or empty. A package
// version only one side records counts for nothing (see the definition). Not
// empty: a change selection runs every case, and merge carries no baseline
// result over.
std::string version_difference(const nlohmann::json& a, const nlohmann::json& b);

}  // namespace capmap

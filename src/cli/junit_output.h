#pragma once
// Writes a snapshot's JUnit report for `report`, `merge` and `diff --junit`.
#include <filesystem>
#include <nlohmann/json.hpp>

namespace capmap {

// Writes atomically and says on stderr what it wrote (tests, failures, skipped).
void write_junit_report(const nlohmann::json& snapshot, const std::filesystem::path& file);

}  // namespace capmap

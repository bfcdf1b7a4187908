#pragma once
// The run key: what makes two records comparable. Records under another key
// are never reused, so a new torch or a new library revision re-measures all.
#include <nlohmann/json.hpp>
#include <string>

namespace capmap {

// The key covers only these parts: `library` contributes its name and
// revision; `versions` and `settings` are taken whole.
nlohmann::json run_key_source(const nlohmann::json& library, const nlohmann::json& versions,
                              const nlohmann::json& settings);

// First 16 hex digits of FNV-1a 64 over the canonical (sorted-key, compact)
// JSON of run_key_source().
std::string compute_run_key(const nlohmann::json& library, const nlohmann::json& versions,
                            const nlohmann::json& settings);

}  // namespace capmap

#pragma once
// Reads a snapshot written by `capmap merge`, checking the parts that diff and
// causes rely on, so bad input fails with one line naming the file.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace capmap {

// Throws UserError ("FILE: problem") when the file is unreadable, not JSON, or
// not a snapshot of a supported schema version.
nlohmann::json load_snapshot(const std::filesystem::path& file);

// A snapshot, or a file in Kornia's export_support.json layout read as one
// (see snapshot/kornia_survey_file.h): either side of `capmap diff`.
nlohmann::json load_snapshot_or_kornia_survey(const std::filesystem::path& file);

// The same checks on a document already in memory; NAME stands for the file in messages.
nlohmann::json parse_snapshot(std::string_view text, const std::string& name);
nlohmann::json parse_snapshot_or_kornia_survey(std::string_view text, const std::string& name);

}  // namespace capmap

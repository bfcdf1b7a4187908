#pragma once
// Turns a snapshot into what a library's users read: the HTML page, a Sphinx
// page and a Markdown summary.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "render/changes_section.h"

namespace capmap {

struct RenderOptions {
  std::optional<std::filesystem::path> html, rst, md, inventory;
  // Override the snapshot's header.library templates when not empty.
  std::string source_url, docs_url;
  // (cause template, remedy template) of the cause rules: remedies for snapshots
  // merged before records carried them. Empty: only the records' own remedies.
  std::vector<std::pair<std::string, std::string>> remedy_templates;
  // With a baseline: what changed since it, for the page's and the summary's Changes section.
  std::optional<PageChanges> changes;
};

// Writes each requested output atomically. Throws UserError when the snapshot
// breaks the contract or the inventory cannot be read; writes nothing then.
void render_snapshot(const nlohmann::json& snapshot, const RenderOptions& options);

}  // namespace capmap

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
  // The RST page writes each operator with a public name as :ROLE:`name <ref>` (the Sphinx
  // extension's role, which resolves it in the docs build). Empty: inventory roles or links.
  std::string xref_role;
  // Only the cases of these packages (snapshot `package` values). Empty: every case.
  std::vector<std::string> packages;
  // Override the snapshot's header.library templates when not empty.
  std::string source_url, docs_url;
  // (cause template, remedy template) of the cause rules: remedies for snapshots
  // merged before records carried them. Empty: only the records' own remedies.
  std::vector<std::pair<std::string, std::string>> remedy_templates;
  // With a baseline: what changed since it, for the page's and the summary's Changes section.
  std::optional<PageChanges> changes;
};

struct RenderedFile {
  std::filesystem::path path;
  std::string text;
};

// Every requested output, rendered in memory. Throws UserError when the snapshot breaks the
// contract, a package is not in it or the inventory cannot be read.
std::vector<RenderedFile> render_files(const nlohmann::json& snapshot,
                                       const RenderOptions& options);

// Writes each requested output atomically; writes nothing when render_files throws.
void render_snapshot(const nlohmann::json& snapshot, const RenderOptions& options);

}  // namespace capmap

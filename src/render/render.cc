#include "render/render.h"

#include <cstdio>
#include <set>
#include <utility>
#include <vector>

#include "common/atomic_file.h"
#include "common/user_error.h"
#include "render/html_page.h"
#include "render/markdown_summary.h"
#include "render/page_model.h"
#include "render/remedy_lookup.h"
#include "render/rst_page.h"
#include "render/sphinx_inventory.h"
#include "render/url_templates.h"

namespace capmap {
namespace {

std::string library_template(const nlohmann::json& snapshot, const char* key) {
  const auto& header = snapshot.value("header", nlohmann::json::object());
  if (!header.is_object()) return {};
  auto lib = header.find("library");
  if (lib == header.end() || !lib->is_object()) return {};
  auto it = lib->find(key);
  return it != lib->end() && it->is_string() ? it->get<std::string>() : std::string();
}

// The snapshot with only the cases of `packages`; each package must hold a case.
nlohmann::json only_packages(const nlohmann::json& snapshot,
                             const std::vector<std::string>& packages) {
  if (packages.empty() || !snapshot.is_object() || !snapshot.contains("cases") ||
      !snapshot["cases"].is_array()) {
    return snapshot;
  }
  std::set<std::string> wanted(packages.begin(), packages.end());
  std::set<std::string> seen, found;
  nlohmann::json kept = nlohmann::json::array();
  for (const auto& c : snapshot["cases"]) {
    std::string package = c.is_object() ? c.value("package", std::string()) : std::string();
    seen.insert(package);
    if (wanted.count(package) == 0) continue;
    found.insert(package);
    kept.push_back(c);
  }
  for (const std::string& p : packages) {
    if (found.count(p) != 0) continue;
    std::string known;
    for (const std::string& s : seen) known += (known.empty() ? "" : ", ") + s;
    throw UserError("--packages: no case is in package '" + p +
                    "' (the snapshot's packages: " + known + ")");
  }
  nlohmann::json out = snapshot;
  out["cases"] = std::move(kept);
  return out;
}

}  // namespace

std::vector<RenderedFile> render_files(const nlohmann::json& full_snapshot,
                                       const RenderOptions& options) {
  const nlohmann::json snapshot = only_packages(full_snapshot, options.packages);
  UrlTemplates urls;
  urls.source_url = options.source_url.empty() && snapshot.is_object()
                        ? library_template(snapshot, "source_url")
                        : options.source_url;
  urls.docs_url = options.docs_url.empty() && snapshot.is_object()
                      ? library_template(snapshot, "docs_url")
                      : options.docs_url;
  PageModel model = build_page_model(snapshot, urls);
  fill_remedies(model, options.remedy_templates);

  std::optional<SphinxInventory> inventory;
  if (options.inventory) inventory = SphinxInventory::load(*options.inventory);

  // Everything is rendered before anything is written, so a failure leaves no half set.
  std::vector<RenderedFile> outputs;
  if (options.rst) {
    RstOptions rst_options;
    rst_options.inventory = inventory ? &*inventory : nullptr;
    rst_options.xref_role = options.xref_role;
    rst_options.changes = options.changes ? &*options.changes : nullptr;
    RstPage rst = render_rst_page(model, rst_options);
    if (inventory && rst.unresolved > 0) {
      std::fprintf(stderr,
                   "capmap: warning: %zu of %zu operator names are not in %s; they stay plain "
                   "text\n",
                   rst.unresolved, rst.unresolved + rst.resolved,
                   options.inventory->string().c_str());
    }
    outputs.push_back({*options.rst, std::move(rst.text)});
  }
  if (options.html) {
    // Without a docs template, the inventory's relative links fit a page
    // published at the root of the same documentation.
    if (inventory && urls.docs_url.empty()) {
      for (CaseRow& row : model.cases) {
        const InventoryEntry* entry = inventory->find(row.ref);
        if (entry && is_safe_link(entry->uri)) row.docs_url = entry->uri;
      }
    }
    outputs.push_back(
        {*options.html, render_html_page(model, options.changes ? changes_html(*options.changes)
                                                                : std::string())});
  }
  if (options.md) {
    outputs.push_back(
        {*options.md,
         render_markdown_summary(
             model, 10, options.changes ? changes_markdown(*options.changes) : std::string())});
  }
  return outputs;
}

void render_snapshot(const nlohmann::json& snapshot, const RenderOptions& options) {
  for (const RenderedFile& file : render_files(snapshot, options)) {
    write_file_atomically(file.path, file.text);
  }
}

}  // namespace capmap

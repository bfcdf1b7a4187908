#include "render/render.h"

#include <cstdio>
#include <utility>
#include <vector>

#include "common/atomic_file.h"
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

}  // namespace

void render_snapshot(const nlohmann::json& snapshot, const RenderOptions& options) {
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
  std::vector<std::pair<std::filesystem::path, std::string>> outputs;
  if (options.rst) {
    RstPage rst = render_rst_page(model, inventory ? &*inventory : nullptr);
    if (inventory && rst.unresolved > 0) {
      std::fprintf(stderr,
                   "capmap: warning: %zu of %zu operator names are not in %s; they stay plain "
                   "text\n",
                   rst.unresolved, rst.unresolved + rst.resolved,
                   options.inventory->string().c_str());
    }
    outputs.emplace_back(*options.rst, std::move(rst.text));
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
    outputs.emplace_back(
        *options.html,
        render_html_page(model, options.changes ? changes_html(*options.changes) : std::string()));
  }
  if (options.md) {
    outputs.emplace_back(
        *options.md,
        render_markdown_summary(
            model, 10, options.changes ? changes_markdown(*options.changes) : std::string()));
  }
  for (const auto& [path, text] : outputs) write_file_atomically(path, text);
}

}  // namespace capmap

#pragma once
// The compatibility page as reStructuredText for a Sphinx docs tree.
#include <cstddef>
#include <string>
#include <string_view>

#include "render/changes_section.h"
#include "render/page_model.h"
#include "render/sphinx_inventory.h"

namespace capmap {

struct RstPage {
  std::string text;
  std::size_t unresolved = 0;  // operator names the inventory does not document
  std::size_t resolved = 0;
};

struct RstOptions {
  // Operators the inventory documents become cross-references (the role its entry calls
  // for); the rest stay plain text.
  const SphinxInventory* inventory = nullptr;
  // Without an inventory: operators with a public name become :ROLE:`name <ref>`, for a
  // role the docs build resolves (capmap.sphinx's). Empty: links from the docs template.
  std::string xref_role;
  // What changed since a baseline: a Changes section after the glance.
  const PageChanges* changes = nullptr;
};

RstPage render_rst_page(const PageModel& model, const RstOptions& options = {});

// Text that reads literally in RST: markup characters are backslash-escaped
// and line breaks become spaces.
std::string escape_rst(std::string_view text);

}  // namespace capmap

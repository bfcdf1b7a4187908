#pragma once
// The compatibility page as reStructuredText for a Sphinx docs tree.
#include <cstddef>
#include <string>
#include <string_view>

#include "render/page_model.h"
#include "render/sphinx_inventory.h"

namespace capmap {

struct RstPage {
  std::string text;
  std::size_t unresolved = 0;  // operator names the inventory does not document
  std::size_t resolved = 0;
};

// With an inventory, operators it documents become cross-references (the role
// its entry calls for) and the rest stay plain text.
RstPage render_rst_page(const PageModel& model, const SphinxInventory* inventory);

// Text that reads literally in RST: markup characters are backslash-escaped
// and line breaks become spaces.
std::string escape_rst(std::string_view text);

}  // namespace capmap

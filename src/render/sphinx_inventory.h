#pragma once
// A Sphinx objects.inv (format version 2): which documented names exist, in
// which role, and where they are documented.
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace capmap {

struct InventoryEntry {
  std::string domain_role;  // "py:function"
  std::string uri;          // relative to the documentation root, '$' already expanded
};

class SphinxInventory {
 public:
  // Throws UserError naming the file when it is not a version 2 inventory.
  static SphinxInventory load(const std::filesystem::path& path);
  // Parses the bytes of an objects.inv; `source` names it in errors.
  static SphinxInventory parse(std::string_view bytes, const std::string& source);

  // The Python-domain entry for a dotted name, if documented.
  const InventoryEntry* find(const std::string& name) const;
  std::size_t size() const { return entries_.size(); }

 private:
  std::map<std::string, InventoryEntry> entries_;
};

// The Sphinx cross-reference role for an inventory entry ("py:func" for
// "py:function"), as used in :py:func:`name`.
std::string cross_reference_role(const InventoryEntry& entry);

}  // namespace capmap

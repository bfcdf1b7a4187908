#include "render/sphinx_inventory.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>

#include "common/user_error.h"

namespace capmap {
namespace {

const char kHeader[] =
    "# Sphinx inventory version 2\n# Project: demo\n# Version: 1.0\n"
    "# The remainder of this file is compressed using zlib.\n";

std::string compress(const std::string& text) {
  uLongf size = compressBound(text.size());
  std::string out(size, '\0');
  compress2(reinterpret_cast<Bytef*>(out.data()), &size,
            reinterpret_cast<const Bytef*>(text.data()), text.size(), 9);
  out.resize(size);
  return out;
}

std::string inventory_bytes() {
  return kHeader + compress(
                       "kornia.color.rgb_to_gray py:function 1 api/color.html#$ -\n"
                       "kornia.filters.Canny py:class 1 api/filters.html#kornia.filters.Canny -\n"
                       "a label with spaces std:label -1 intro.html#label A label\n"
                       "kornia.Image.to py:method 1 api/image.html#$ -\n");
}

TEST(SphinxInventory, ReadsPythonEntriesAndExpandsDollar) {
  SphinxInventory inv = SphinxInventory::parse(inventory_bytes(), "objects.inv");
  EXPECT_EQ(inv.size(), 3u);
  const InventoryEntry* gray = inv.find("kornia.color.rgb_to_gray");
  ASSERT_NE(gray, nullptr);
  EXPECT_EQ(gray->uri, "api/color.html#kornia.color.rgb_to_gray");
  EXPECT_EQ(cross_reference_role(*gray), "py:func");
  ASSERT_NE(inv.find("kornia.filters.Canny"), nullptr);
  EXPECT_EQ(cross_reference_role(*inv.find("kornia.filters.Canny")), "py:class");
  EXPECT_EQ(cross_reference_role(*inv.find("kornia.Image.to")), "py:meth");
  EXPECT_EQ(inv.find("a label with spaces"), nullptr);
  EXPECT_EQ(inv.find("kornia.color"), nullptr);
}

TEST(SphinxInventory, LoadsFromAFile) {
  auto path = std::filesystem::temp_directory_path() / "capmap_render_objects.inv";
  {
    std::ofstream out(path, std::ios::binary);
    out << inventory_bytes();
  }
  EXPECT_NE(SphinxInventory::load(path).find("kornia.Image.to"), nullptr);
  std::filesystem::remove(path);
  EXPECT_THROW(SphinxInventory::load(path), UserError);
}

void expect_error(const std::string& bytes, const std::string& fragment) {
  try {
    SphinxInventory::parse(bytes, "docs/objects.inv");
    FAIL() << "expected an error containing " << fragment;
  } catch (const UserError& e) {
    std::string what = e.what();
    EXPECT_EQ(what.rfind("docs/objects.inv: ", 0), 0u) << what;
    EXPECT_NE(what.find(fragment), std::string::npos) << what;
  }
}

TEST(SphinxInventory, RejectsWhatIsNotAVersion2Inventory) {
  expect_error("# Sphinx inventory version 1\n# Project: x\n# Version: 1\nfoo bar\n",
               "not a Sphinx inventory version 2");
  expect_error("short", "not a Sphinx inventory");
  std::string bytes = inventory_bytes();
  expect_error(bytes.substr(0, bytes.size() - 8), "cut short");
  expect_error(std::string(kHeader) + "definitely not zlib", "damaged");
}

}  // namespace
}  // namespace capmap

#include "render/sphinx_inventory.h"

#include <zlib.h>

#include <regex>
#include <vector>

#include "common/atomic_file.h"
#include "common/user_error.h"

namespace capmap {
namespace {

std::string inflate_all(std::string_view compressed, const std::string& source) {
  z_stream stream{};
  if (inflateInit(&stream) != Z_OK) throw UserError(source + ": cannot start zlib");
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
  stream.avail_in = static_cast<uInt>(compressed.size());
  std::string out;
  std::vector<char> buffer(1 << 16);
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    stream.next_out = reinterpret_cast<Bytef*>(buffer.data());
    stream.avail_out = static_cast<uInt>(buffer.size());
    rc = inflate(&stream, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) {
      inflateEnd(&stream);
      throw UserError(source + ": the compressed part of the inventory is damaged");
    }
    out.append(buffer.data(), buffer.size() - stream.avail_out);
    if (rc == Z_OK && stream.avail_in == 0 && stream.avail_out != 0) {
      inflateEnd(&stream);
      throw UserError(source + ": the compressed part of the inventory is cut short");
    }
  }
  inflateEnd(&stream);
  return out;
}

}  // namespace

SphinxInventory SphinxInventory::load(const std::filesystem::path& path) {
  return parse(read_file(path), path.string());
}

SphinxInventory SphinxInventory::parse(std::string_view bytes, const std::string& source) {
  // Four text lines, then a zlib stream of "name domain:role priority uri dispname" lines.
  std::size_t pos = 0;
  std::vector<std::string_view> header;
  while (header.size() < 4) {
    auto end = bytes.find('\n', pos);
    if (end == std::string_view::npos) throw UserError(source + ": not a Sphinx inventory");
    header.push_back(bytes.substr(pos, end - pos));
    pos = end + 1;
  }
  if (header[0] != "# Sphinx inventory version 2") {
    throw UserError(source + ": not a Sphinx inventory version 2 (first line: '" +
                    std::string(header[0].substr(0, 60)) + "')");
  }
  if (header[3].find("zlib") == std::string_view::npos) {
    throw UserError(source + ": inventory body is not zlib-compressed");
  }
  std::string body = inflate_all(bytes.substr(pos), source);

  // Names may contain spaces (std:label), so the role anchors the split.
  static const std::regex line_re(R"(^(.+?)\s+(\S+:\S+)\s+(-?\d+)\s+?(\S*)\s+(.*)$)");
  SphinxInventory inventory;
  std::size_t start = 0;
  while (start < body.size()) {
    std::size_t end = body.find('\n', start);
    if (end == std::string::npos) end = body.size();
    std::string line = body.substr(start, end - start);
    start = end + 1;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::smatch m;
    if (line.empty() || !std::regex_match(line, m, line_re)) continue;
    std::string name = m[1], role = m[2], uri = m[4];
    if (role.rfind("py:", 0) != 0) continue;
    if (!uri.empty() && uri.back() == '$') uri = uri.substr(0, uri.size() - 1) + name;
    inventory.entries_.emplace(name, InventoryEntry{role, uri});
  }
  return inventory;
}

const InventoryEntry* SphinxInventory::find(const std::string& name) const {
  auto it = entries_.find(name);
  return it == entries_.end() ? nullptr : &it->second;
}

std::string cross_reference_role(const InventoryEntry& entry) {
  static const std::map<std::string, std::string> roles = {
      {"py:function", "py:func"}, {"py:class", "py:class"},    {"py:method", "py:meth"},
      {"py:module", "py:mod"},    {"py:attribute", "py:attr"}, {"py:data", "py:data"},
      {"py:exception", "py:exc"}, {"py:property", "py:attr"},
  };
  auto it = roles.find(entry.domain_role);
  return it == roles.end() ? "py:obj" : it->second;
}

}  // namespace capmap

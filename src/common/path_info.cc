#include "common/path_info.h"

#include <algorithm>
#include <tuple>

#include "common/user_error.h"

namespace capmap {
namespace {

std::string text(const nlohmann::json& object, const char* key, const std::string& where) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return {};
  if (!it->is_string()) throw UserError(where + ": '" + key + "' should be a string");
  return it->get<std::string>();
}

bool flag(const nlohmann::json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_boolean() && it->get<bool>();
}

PathInfo read_one(const nlohmann::json& entry, const std::string& fallback_name,
                  const std::string& where) {
  if (!entry.is_object()) throw UserError(where + ": a path description should be an object");
  PathInfo path;
  path.name = text(entry, "name", where);
  if (path.name.empty()) path.name = fallback_name;
  if (path.name.empty()) throw UserError(where + ": a path description has no name");
  const std::string at = where + " path '" + path.name + "'";
  path.label = text(entry, "label", at);
  path.short_label = text(entry, "short", at);
  path.description = text(entry, "description", at);
  if (path.label.empty()) path.label = path.name;
  if (path.short_label.empty()) path.short_label = path.label;
  if (auto o = entry.find("order"); o != entry.end() && o->is_number_integer()) path.order = *o;
  if (auto b = entry.find("builds_on"); b != entry.end() && b->is_array()) {
    for (const auto& name : *b) {
      if (name.is_string()) path.builds_on.push_back(name.get<std::string>());
    }
  }
  if (auto s = entry.find("statuses"); s != entry.end() && s->is_object()) {
    for (const auto& [raw, shown] : s->items()) {
      if (!shown.is_string()) throw UserError(at + ": status '" + raw + "' should map to a string");
      path.statuses[raw] = shown.get<std::string>();
    }
  }
  path.is_default = flag(entry, "default");
  path.reference = flag(entry, "reference");
  return path;
}

PathInfo builtin(const char* name, const char* label, const char* short_label, int order,
                 std::map<std::string, std::string> statuses) {
  PathInfo path;
  path.name = name;
  path.label = label;
  path.short_label = short_label;
  path.order = order;
  path.statuses = std::move(statuses);
  path.is_default = true;
  path.reference = path.name == "eager";
  if (path.name == "onnx") path.builds_on = {"export"};
  return path;
}

}  // namespace

std::vector<PathInfo> read_path_infos(const nlohmann::json& value, const std::string& where) {
  std::vector<PathInfo> paths;
  if (value.is_array()) {
    for (const auto& entry : value) paths.push_back(read_one(entry, "", where));
  } else if (value.is_object()) {
    for (const auto& [name, entry] : value.items()) paths.push_back(read_one(entry, name, where));
  } else if (!value.is_null()) {
    throw UserError(where + ": path descriptions should be a list or an object");
  }
  return paths;
}

nlohmann::json path_info_json(const PathInfo& path) {
  return {{"label", path.label},
          {"short", path.short_label},
          {"description", path.description},
          {"order", path.order},
          {"builds_on", path.builds_on},
          {"statuses", path.statuses},
          {"default", path.is_default},
          {"reference", path.reference}};
}

nlohmann::json path_info_list_json(const std::vector<PathInfo>& paths) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& path : paths) {
    list.push_back(path_info_json(path));
    list.back()["name"] = path.name;
  }
  return list;
}

const std::vector<PathInfo>& builtin_paths() {
  // Their raw statuses map through merge's own table (page_status), as they always did.
  static const std::vector<PathInfo> paths = {
      builtin("eager", "eager", "eager", 0, {}),
      builtin("onnx", "ONNX", "ONNX", 10, {}),
      builtin("export", "torch.export", "export", 20, {}),
      builtin("compile", "torch.compile", "compile", 30, {}),
  };
  return paths;
}

PathInfo describe_path(const std::vector<PathInfo>& known, const std::string& name) {
  for (const auto* list : {&known, &builtin_paths()}) {
    auto it =
        std::find_if(list->begin(), list->end(), [&](const PathInfo& p) { return p.name == name; });
    if (it != list->end()) return *it;
  }
  PathInfo bare;
  bare.name = bare.label = bare.short_label = name;
  bare.order = 1000;  // after every described path
  return bare;
}

void sort_paths(std::vector<std::string>& names, const std::vector<PathInfo>& known) {
  std::stable_sort(names.begin(), names.end(), [&](const std::string& a, const std::string& b) {
    PathInfo x = describe_path(known, a), y = describe_path(known, b);
    return std::make_tuple(!x.reference, x.order, a) < std::make_tuple(!y.reference, y.order, b);
  });
}

}  // namespace capmap

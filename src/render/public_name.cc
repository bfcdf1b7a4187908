#include "render/public_name.h"

#include <algorithm>
#include <vector>

namespace capmap {
namespace {

std::vector<std::string> split_dots(std::string_view text) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    std::size_t dot = text.find('.', start);
    parts.emplace_back(text.substr(start, dot == std::string_view::npos ? dot : dot - start));
    if (dot == std::string_view::npos) return parts;
    start = dot + 1;
  }
}

std::string join(const std::vector<std::string>& parts, std::size_t count, char sep) {
  std::string out;
  for (std::size_t i = 0; i < count && i < parts.size(); ++i) {
    if (i > 0) out += sep;
    out += parts[i];
  }
  return out;
}

}  // namespace

PublicName derive_public_name(std::string_view ref, std::string_view operator_name,
                              const std::set<std::string>& packages) {
  PublicName name;
  if (ref.empty()) return name;
  // A ref may name the method itself ("...hybrid_encoder.RepVggBlock.optimize") or its
  // class ("...keypoints.Keypoints" for "Keypoints.from_tensor"): either way the module
  // path ends before the class, and the method keeps its class.
  std::string object, member;
  std::string_view module_path;
  auto dot = operator_name.find('.');
  bool names_method = dot != std::string_view::npos && ref.size() > operator_name.size() &&
                      ref.substr(ref.size() - operator_name.size()) == operator_name &&
                      ref[ref.size() - operator_name.size() - 1] == '.';
  if (names_method) {
    module_path = ref.substr(0, ref.size() - operator_name.size() - 1);
    object = std::string(operator_name.substr(0, dot));
    member = std::string(operator_name.substr(dot));
    name.defined = std::string(ref);
  } else {
    auto last = ref.rfind('.');
    module_path = last == std::string_view::npos ? std::string_view() : ref.substr(0, last);
    object = std::string(last == std::string_view::npos ? ref : ref.substr(last + 1));
    if (dot != std::string_view::npos && operator_name.substr(0, dot) == object) {
      member = std::string(operator_name.substr(dot));
    }
    name.defined = std::string(ref) + member;
  }
  std::vector<std::string> parts;
  if (!module_path.empty()) parts = split_dots(module_path);
  if (parts.empty()) {
    name.qualified = name.defined;
    return name;
  }
  std::size_t keep = parts.size();
  auto is_private = [](const std::string& p) { return !p.empty() && p[0] == '_'; };
  auto first_private = std::find_if(parts.begin() + 1, parts.end(), is_private);
  if (first_private != parts.end()) {
    keep = static_cast<std::size_t>(first_private - parts.begin());
  } else if (parts.size() >= 3) {
    // The defining file is dropped unless it is a package (files lie under it).
    if (!packages.count(join(parts, parts.size(), '/') + "/")) keep = parts.size() - 1;
  }
  name.module = join(parts, keep, '.');
  name.qualified = name.module + "." + object + member;
  return name;
}

PublicName case_public_name(std::string_view ref, std::string_view public_ref,
                            std::string_view operator_name, const std::set<std::string>& packages) {
  auto colon = public_ref.find(':');
  if (ref.empty() || colon == std::string_view::npos || colon == 0 ||
      colon + 1 == public_ref.size()) {
    return derive_public_name(ref, operator_name, packages);
  }
  std::string_view module = public_ref.substr(0, colon);
  std::string_view object = public_ref.substr(colon + 1);
  // A method case names its method after the object the ref names ("Boxes" and
  // "Boxes.from_tensor"), unless the ref names the method itself; a prefix such as
  // "tiny_vit." in "tiny_vit.Attention.forward" stands before the object.
  std::string member;
  const bool names_operator =
      object == operator_name ||
      (object.size() > operator_name.size() &&
       object.substr(object.size() - operator_name.size()) == operator_name &&
       object[object.size() - operator_name.size() - 1] == '.');
  if (!names_operator) {
    std::vector<std::string> op_parts = split_dots(operator_name);
    std::string_view last = object.substr(object.rfind('.') + 1);
    for (std::size_t i = 0; i + 1 < op_parts.size(); ++i) {
      if (op_parts[i] != last) continue;
      for (std::size_t j = i + 1; j < op_parts.size(); ++j) member += "." + op_parts[j];
      break;
    }
  }
  PublicName name;
  name.module = std::string(module);
  name.qualified = name.module + "." + std::string(object) + member;
  name.defined = std::string(ref) + member;
  // An operator named with its module ("vit_mobile.conv_1x1_bn") belongs to the
  // package above that module, as its registry grouped it.
  const std::size_t before_operator = name.qualified.size() - operator_name.size();
  if (!operator_name.empty() && name.qualified.size() > operator_name.size() &&
      before_operator - 1 < name.module.size() &&
      name.qualified.compare(before_operator, std::string_view::npos, operator_name) == 0 &&
      name.qualified[before_operator - 1] == '.') {
    name.module.resize(before_operator - 1);
  }
  return name;
}

void add_package_dirs(const std::string& file, std::set<std::string>& packages) {
  for (std::size_t slash = file.find('/'); slash != std::string::npos;
       slash = file.find('/', slash + 1)) {
    packages.insert(file.substr(0, slash + 1));
  }
}

}  // namespace capmap

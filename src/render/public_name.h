#pragma once
// The public spelling of an operator, derived from where it is defined.
//
// A case's `ref` names the object where the library defines it
// ("kornia.geometry.transform.imgwarp.warp_perspective"); readers know it by the
// package they import it from ("kornia.geometry.transform.warp_perspective").
// A snapshot made since the worker records it names the package in the case's
// `public_ref` ("monai.transforms:SpatialPad"), found in the imported library.
// An older one has none, so the public spelling is derived: the module path is
// cut at its first private component ("_2d"), else the module file that defines
// the object is dropped (the package re-exports it, or so it is assumed), and a
// method keeps its class ("kornia.geometry.Keypoints.from_tensor").
#include <set>
#include <string>
#include <string_view>

namespace capmap {

struct PublicName {
  std::string qualified;  // "kornia.geometry.transform.warp_perspective"; empty without a ref
  std::string defined;    // "kornia.geometry.transform.imgwarp.warp_perspective"
  std::string module;     // "kornia.geometry.transform": the package users import it from
};

// `packages` are the folders of the source files the survey ran
// ("kornia/geometry/liegroup/"): a module that is one of them is a package and is kept.
PublicName derive_public_name(std::string_view ref, std::string_view operator_name,
                              const std::set<std::string>& packages);

// The case's public name from its `public_ref` ("module:qualified.name"), the
// derived one when it has none.
PublicName case_public_name(std::string_view ref, std::string_view public_ref,
                            std::string_view operator_name, const std::set<std::string>& packages);

// Adds every folder of `file` ("a/b/c.py" -> "a/", "a/b/") to `packages`.
void add_package_dirs(const std::string& file, std::set<std::string>& packages);

}  // namespace capmap

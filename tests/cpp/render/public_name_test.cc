#include "render/public_name.h"

#include <gtest/gtest.h>

#include <vector>

namespace capmap {
namespace {

std::set<std::string> dirs(const std::vector<std::string>& files) {
  std::set<std::string> out;
  for (const std::string& f : files) add_package_dirs(f, out);
  return out;
}

TEST(PublicName, DropsTheDefiningFile) {
  PublicName n =
      derive_public_name("kornia.geometry.transform.imgwarp.warp_perspective", "warp_perspective",
                         dirs({"kornia/geometry/transform/imgwarp.py"}));
  EXPECT_EQ(n.qualified, "kornia.geometry.transform.warp_perspective");
  EXPECT_EQ(n.module, "kornia.geometry.transform");
  EXPECT_EQ(n.defined, "kornia.geometry.transform.imgwarp.warp_perspective");
}

TEST(PublicName, AModuleOtherCasesShowAsAFolderIsAPackage) {
  PublicName n = derive_public_name("kornia.geometry.transform.warp_affine", "warp_affine",
                                    dirs({"kornia/geometry/transform/imgwarp.py"}));
  EXPECT_EQ(n.qualified, "kornia.geometry.transform.warp_affine");
}

TEST(PublicName, CutsAtThePrivateModule) {
  PublicName n =
      derive_public_name("kornia.augmentation._2d.intensity.gaussian_noise.RandomGaussianNoise",
                         "RandomGaussianNoise", {});
  EXPECT_EQ(n.qualified, "kornia.augmentation.RandomGaussianNoise");
}

TEST(PublicName, KeepsAPackageAndAMethodsClass) {
  PublicName so3 =
      derive_public_name("kornia.geometry.liegroup.So3", "So3.exp",
                         dirs({"kornia/core/check.py", "kornia/geometry/liegroup/so3.py"}));
  EXPECT_EQ(so3.qualified, "kornia.geometry.liegroup.So3.exp");
  EXPECT_EQ(so3.defined, "kornia.geometry.liegroup.So3.exp");
  PublicName method = derive_public_name(
      "kornia.models.rt_detr.architecture.hybrid_encoder.RepVggBlock.optimize_for_deployment",
      "RepVggBlock.optimize_for_deployment", {});
  EXPECT_EQ(method.qualified,
            "kornia.models.rt_detr.architecture.RepVggBlock.optimize_for_deployment");
  EXPECT_EQ(method.module, "kornia.models.rt_detr.architecture");
}

TEST(PublicName, ShortRefsStayAsTheyAre) {
  EXPECT_EQ(
      derive_public_name("kornia.utils.safe_inverse_with_mask", "utils.safe_inverse_with_mask", {})
          .qualified,
      "kornia.utils.safe_inverse_with_mask");
  EXPECT_EQ(derive_public_name("", "x", {}).qualified, "");
  EXPECT_EQ(derive_public_name("solo", "solo", {}).qualified, "solo");
}

TEST(PublicName, TheStoredPackageIsTakenAsItIs) {
  // monai.transforms.croppad exports nothing: the fixed cut named no object.
  const char* ref = "monai.transforms.croppad.array.SpatialPad";
  EXPECT_EQ(derive_public_name(ref, "SpatialPad", {}).qualified,
            "monai.transforms.croppad.SpatialPad");
  PublicName n = case_public_name(ref, "monai.transforms:SpatialPad", "SpatialPad", {});
  EXPECT_EQ(n.qualified, "monai.transforms.SpatialPad");
  EXPECT_EQ(n.module, "monai.transforms");
  EXPECT_EQ(n.defined, ref);
  // A module file only the defining module exports is kept, not cut to a package without it.
  EXPECT_EQ(case_public_name("kornia.geometry.boxes.Boxes", "kornia.geometry.boxes:Boxes",
                             "Boxes.from_tensor", {})
                .qualified,
            "kornia.geometry.boxes.Boxes.from_tensor");
}

TEST(PublicName, AStoredNameKeepsTheMethodOfItsCase) {
  EXPECT_EQ(case_public_name("a.b.array.Thing", "a:Thing", "Thing.forward", {}).defined,
            "a.b.array.Thing.forward");
  EXPECT_EQ(
      case_public_name("a.b.array.Thing.forward", "a:Thing.forward", "Thing.forward", {}).qualified,
      "a.Thing.forward");
  EXPECT_EQ(case_public_name("kornia.models.tiny_vit.Attention", "kornia.models.tiny_vit:Attention",
                             "tiny_vit.Attention.build_attention_bias", {})
                .qualified,
            "kornia.models.tiny_vit.Attention.build_attention_bias");
  PublicName grid = case_public_name("kornia.utils.create_meshgrid", "kornia.utils:create_meshgrid",
                                     "utils.create_meshgrid", {});
  EXPECT_EQ(grid.qualified, "kornia.utils.create_meshgrid");
  EXPECT_EQ(grid.module, "kornia");  // the operator's name holds its module
}

TEST(PublicName, WithoutAStoredPackageTheNameIsDerived) {
  const std::set<std::string> packages = dirs({"kornia/geometry/transform/imgwarp.py"});
  const char* ref = "kornia.geometry.transform.imgwarp.warp_perspective";
  for (const char* stored : {"", "no colon", ":x", "x:"}) {
    EXPECT_EQ(case_public_name(ref, stored, "warp_perspective", packages).qualified,
              "kornia.geometry.transform.warp_perspective")
        << stored;
  }
}

}  // namespace
}  // namespace capmap

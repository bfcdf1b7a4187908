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

}  // namespace
}  // namespace capmap

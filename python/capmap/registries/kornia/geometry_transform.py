"""Kornia survey: geometry.transform — warps, affine ops, crops, flips, resizes, pyramids, TPS."""

from __future__ import annotations

import kornia.geometry.transform as T
import torch
from kornia.geometry.transform import Homography, ImageRegistrator, ScalePyramid, Similarity

from capmap import case, exclude
from capmap.registries.kornia import _inputs as I

IMG = I.image()
IMG2 = I.image(2)
VOL = I.volume()
B = 2
OBJECT_OUT = "returns a kornia object (an nn.Module): no tensor output to compare"
RANDOM = "random by design: values are not compared"

GW = "geometry.transform.imgwarp"
GA = "geometry.transform.affwarp"
GC = "geometry.transform.crop"
GF = "geometry.transform.flips"
GP = "geometry.transform.pyramid"
GT = "geometry.transform.thin_plate_spline"
GE = "geometry.transform.elastic"
GH = "geometry.transform.homography_warper"
GR = "geometry.transform.image_registrator"

DSIZE = (I.H, I.W)
AFF = I.affine2x3(B)
HOM = I.homography(B)
CENTER = torch.tensor([[19.5, 15.5]]).repeat(B, 1)

# Warps ----------------------------------------------------------------------------------------
case("warp_affine", GW, T.warp_affine, [IMG2, AFF], {"dsize": DSIZE}, tags=("quick",))
case("warp_perspective", GW, T.warp_perspective, [IMG2, HOM], {"dsize": DSIZE})
for mode in ("nearest", "bicubic"):
    case(f"warp_affine[mode={mode}]", GW, T.warp_affine, [IMG2, AFF], {"dsize": DSIZE, "mode": mode})
    case(
        f"warp_perspective[mode={mode}]", GW, T.warp_perspective, [IMG2, HOM], {"dsize": DSIZE, "mode": mode}
    )
for pad in ("border", "reflection", "fill"):
    extra = {"fill_value": torch.tensor([0.1, 0.5, 0.9])} if pad == "fill" else {}
    case(
        f"warp_affine[padding_mode={pad}]",
        GW,
        T.warp_affine,
        [IMG2, AFF],
        {"dsize": DSIZE, "padding_mode": pad, **extra},
    )
    case(
        f"warp_perspective[padding_mode={pad}]",
        GW,
        T.warp_perspective,
        [IMG2, HOM],
        {"dsize": DSIZE, "padding_mode": pad, **extra},
    )
case(
    "warp_affine[align_corners=False]",
    GW,
    T.warp_affine,
    [IMG2, AFF],
    {"dsize": DSIZE, "align_corners": False},
)
case(
    "warp_perspective[align_corners=False]",
    GW,
    T.warp_perspective,
    [IMG2, HOM],
    {"dsize": DSIZE, "align_corners": False},
)
case(
    "warp_affine[dsize=16x20]",
    GW,
    T.warp_affine,
    [IMG2, AFF * torch.tensor([[0.5], [0.5]])],
    {"dsize": (16, 20)},
)
case("warp_perspective[dsize=16x20]", GW, T.warp_perspective, [IMG2, HOM], {"dsize": (16, 20)})
AFF3 = I.affine3x4(B)
case("warp_affine3d", GW, T.warp_affine3d, [I.volume(B), AFF3], {"dsize": (8, 16, 16)})
case(
    "warp_affine3d[flags=nearest]",
    GW,
    T.warp_affine3d,
    [I.volume(B), AFF3],
    {"dsize": (8, 16, 16), "flags": "nearest"},
)
case("warp_perspective3d", GW, T.warp_perspective3d, [I.volume(B), I.homography3d(B)], {"dsize": (8, 16, 16)})
case(
    "warp_perspective3d[flags=nearest]",
    GW,
    T.warp_perspective3d,
    [I.volume(B), I.homography3d(B)],
    {"dsize": (8, 16, 16), "flags": "nearest"},
)
NORM_HOM = torch.eye(3).repeat(B, 1, 1) + I.randn(B, 3, 3, scale=0.02)
case("homography_warp", GW, T.homography_warp, [IMG2, NORM_HOM], {"dsize": DSIZE})
case(
    "homography_warp[normalized_homography=False]",
    GW,
    T.homography_warp,
    [IMG2, HOM],
    {"dsize": DSIZE, "normalized_homography": False},
)
case(
    "homography_warp3d",
    GW,
    T.homography_warp3d,
    [I.volume(B), torch.eye(4).repeat(B, 1, 1) + I.randn(B, 4, 4, scale=0.02)],
    {"dsize": (8, 16, 16)},
)
GRID = I.rand(1, I.H, I.W, 2, low=-1.0, high=1.0)
case("warp_grid", GW, T.warp_grid, [GRID, NORM_HOM[:1]])
case(
    "warp_grid3d",
    GW,
    T.warp_grid3d,
    [I.rand(1, 8, 16, 16, 3, low=-1.0, high=1.0), torch.eye(4).unsqueeze(0) + I.randn(1, 4, 4, scale=0.02)],
)
YS, XS = torch.meshgrid(
    torch.arange(I.H, dtype=torch.float32), torch.arange(I.W, dtype=torch.float32), indexing="ij"
)
MAP_X = (XS + 1.5 * torch.sin(YS / 4.0)).unsqueeze(0)
MAP_Y = (YS + 1.5 * torch.cos(XS / 5.0)).unsqueeze(0)
case("remap", GW, T.remap, [IMG, MAP_X, MAP_Y])
case("remap[mode=nearest]", GW, T.remap, [IMG, MAP_X, MAP_Y], {"mode": "nearest"})
case(
    "remap[normalized_coordinates]",
    GW,
    T.remap,
    [IMG, MAP_X / (I.W - 1) * 2 - 1, MAP_Y / (I.H - 1) * 2 - 1],
    {"normalized_coordinates": True, "align_corners": True},
)
case("get_perspective_transform", GW, T.get_perspective_transform, [I.quad(B), I.quad_moved(B)])
BOX3 = I.box_corners3d(1, 1)[:, 0]
case(
    "get_perspective_transform3d",
    GW,
    T.get_perspective_transform3d,
    [BOX3, BOX3 + I.randn(1, 8, 3, scale=0.3)],
)
case(
    "get_rotation_matrix2d",
    GW,
    T.get_rotation_matrix2d,
    [CENTER, I.angles(B), I.rand(B, 2, low=0.8, high=1.2)],
)
case(
    "get_affine_matrix2d",
    GW,
    T.get_affine_matrix2d,
    [I.randn(B, 2, scale=3.0), CENTER, I.rand(B, 2, low=0.8, high=1.2), I.angles(B)],
)
case(
    "get_affine_matrix2d[shear]",
    GW,
    T.get_affine_matrix2d,
    [
        I.randn(B, 2, scale=3.0),
        CENTER,
        I.rand(B, 2, low=0.8, high=1.2),
        I.angles(B),
        I.rand(B, low=-0.2, high=0.2),
        I.rand(B, seed=1, low=-0.2, high=0.2),
    ],
)
CENTER3 = torch.tensor([[7.5, 7.5, 3.5]]).repeat(B, 1)
ANG3 = I.rand(B, 3, low=-30.0, high=30.0)
case(
    "get_affine_matrix3d",
    GW,
    T.get_affine_matrix3d,
    [I.randn(B, 3, scale=2.0), CENTER3, I.rand(B, 3, low=0.8, high=1.2), ANG3],
)
case(
    "get_projective_transform",
    GW,
    T.get_projective_transform,
    [CENTER3, ANG3, I.rand(B, 3, low=0.8, high=1.2)],
)
case(
    "get_shear_matrix2d",
    GW,
    T.get_shear_matrix2d,
    [CENTER, I.rand(B, low=-0.2, high=0.2), I.rand(B, seed=1, low=-0.2, high=0.2)],
)
case(
    "get_shear_matrix3d",
    GW,
    T.get_shear_matrix3d,
    [CENTER3] + [I.rand(B, seed=s, low=-0.2, high=0.2) for s in range(6)],
)
case("get_translation_matrix2d", GW, T.get_translation_matrix2d, [I.randn(B, 2, scale=3.0)])
case("invert_affine_transform", GW, T.invert_affine_transform, [AFF])
case("projection_from_Rt", GW, T.projection_from_Rt, [I.rotation(B), I.translation(B)])

# Affine helpers and their modules ------------------------------------------------------------
case("affine", GA, T.affine, [IMG2, AFF])
case("affine[mode=nearest]", GA, T.affine, [IMG2, AFF], {"mode": "nearest"})
case("affine[padding_mode=reflection]", GA, T.affine, [IMG2, AFF], {"padding_mode": "reflection"})
case("affine3d", GA, T.affine3d, [I.volume(B), AFF3])
ANGLE = I.angles(B)
case("rotate", GA, T.rotate, [IMG2, ANGLE])
case("rotate[center]", GA, T.rotate, [IMG2, ANGLE, torch.tensor([[10.0, 8.0]]).repeat(B, 1)])
case("rotate[mode=nearest]", GA, T.rotate, [IMG2, ANGLE], {"mode": "nearest"})
case("rotate[padding_mode=border]", GA, T.rotate, [IMG2, ANGLE], {"padding_mode": "border"})
case("Rotate", GA, T.Rotate(ANGLE), [IMG2])
case("rotate3d", GA, T.rotate3d, [I.volume(B), I.angles(B), I.angles(B, seed=1), I.angles(B, seed=2)])
SHIFT = I.randn(B, 2, scale=3.0)
case("translate", GA, T.translate, [IMG2, SHIFT])
case("translate[padding_mode=border]", GA, T.translate, [IMG2, SHIFT], {"padding_mode": "border"})
case("Translate", GA, T.Translate(SHIFT), [IMG2])
SCALE = I.rand(B, 2, low=0.8, high=1.2)
case("scale", GA, T.scale, [IMG2, SCALE])
case("scale[center]", GA, T.scale, [IMG2, SCALE, torch.tensor([[10.0, 8.0]]).repeat(B, 1)])
case("Scale", GA, T.Scale(SCALE), [IMG2])
SHEAR = I.rand(B, 2, low=-0.2, high=0.2)
case("shear", GA, T.shear, [IMG2, SHEAR])
case("Shear", GA, T.Shear(SHEAR), [IMG2])
case("Affine", GA, T.Affine(angle=ANGLE, translation=SHIFT, scale_factor=SCALE), [IMG2])
case("Affine[shear,center]", GA, T.Affine(angle=ANGLE, shear=SHEAR, center=CENTER), [IMG2])
case("resize", GA, T.resize, [IMG], {"size": (16, 20)})
for interp in ("nearest", "bicubic", "area"):
    case(f"resize[interpolation={interp}]", GA, T.resize, [IMG], {"size": (16, 20), "interpolation": interp})
case("resize[antialias]", GA, T.resize, [IMG], {"size": (16, 20), "antialias": True})
case("resize[upsample]", GA, T.resize, [IMG], {"size": (48, 60)})
case("resize[side=long]", GA, T.resize, [IMG], {"size": 24, "side": "long"})
case("resize[align_corners=True]", GA, T.resize, [IMG], {"size": (16, 20), "align_corners": True})
# Resize and Rescale are also public names of kornia.augmentation / kornia.enhance (other objects).
case("geometry.Resize", GA, T.Resize((16, 20)), [IMG])
case("geometry.Resize[antialias]", GA, T.Resize((16, 20), antialias=True), [IMG])
case("rescale", GA, T.rescale, [IMG], {"factor": 0.5})
case("rescale[factor=(2,1.5)]", GA, T.rescale, [IMG], {"factor": (2.0, 1.5)})
case("rescale[antialias]", GA, T.rescale, [IMG], {"factor": 0.5, "antialias": True})
case("geometry.Rescale", GA, T.Rescale(0.5), [IMG])
case("resize_to_be_divisible", GA, T.resize_to_be_divisible, [IMG], {"divisible_factor": 14})

# Crops ----------------------------------------------------------------------------------------
BOX = I.box_corners(1, 1)[:, 0].repeat(B, 1, 1)
case("center_crop", GC, T.center_crop, [IMG], {"size": (16, 16)})
case("center_crop[mode=nearest]", GC, T.center_crop, [IMG], {"size": (16, 16), "mode": "nearest"})
case("CenterCrop2D", GC, T.CenterCrop2D((16, 16)), [IMG])
case("CenterCrop2D[cropping_mode=resample]", GC, T.CenterCrop2D((16, 16), cropping_mode="resample"), [IMG])
case("crop_and_resize", GC, T.crop_and_resize, [IMG2, BOX], {"size": (16, 16)})
case(
    "crop_and_resize[mode=nearest]", GC, T.crop_and_resize, [IMG2, BOX], {"size": (16, 16), "mode": "nearest"}
)
DST = torch.tensor([[[0.0, 0.0], [15.0, 0.0], [15.0, 15.0], [0.0, 15.0]]]).repeat(B, 1, 1)
case("crop_by_boxes", GC, T.crop_by_boxes, [IMG2, BOX, DST])
case("crop_by_indices", GC, T.crop_by_indices, [IMG2, BOX])
case("crop_by_indices[size=16x16]", GC, T.crop_by_indices, [IMG2, BOX], {"size": (16, 16)})
case("crop_by_transform_mat", GC, T.crop_by_transform_mat, [IMG2, HOM], {"out_size": (16, 16)})
BOX3D = I.box_corners3d(1, 1)[:, 0].repeat(B, 1, 1)
DST3D = (
    torch.tensor(
        [[0, 0, 0], [3, 0, 0], [3, 3, 0], [0, 3, 0], [0, 0, 3], [3, 0, 3], [3, 3, 3], [0, 3, 3]],
        dtype=torch.float32,
    )
    .unsqueeze(0)
    .repeat(B, 1, 1)
)
case("center_crop3d", GC, T.center_crop3d, [VOL], {"size": (4, 8, 8)})
case("crop_and_resize3d", GC, T.crop_and_resize3d, [I.volume(B), BOX3D], {"size": (4, 4, 4)})
case("crop_by_boxes3d", GC, T.crop_by_boxes3d, [I.volume(B), BOX3D, DST3D])
case(
    "crop_by_transform_mat3d",
    GC,
    T.crop_by_transform_mat3d,
    [I.volume(B), I.homography3d(B)],
    {"out_size": (4, 8, 8)},
)

# Flips ----------------------------------------------------------------------------------------
case("hflip", GF, T.hflip, [IMG], tags=("quick",))
case("vflip", GF, T.vflip, [IMG])
case("rot180", GF, T.rot180, [IMG])
case("Hflip", GF, T.Hflip(), [IMG])
case("Vflip", GF, T.Vflip(), [IMG])
case("Rot180", GF, T.Rot180(), [IMG])

# Pyramids -------------------------------------------------------------------------------------
case("pyrdown", GP, T.pyrdown, [IMG])
case("pyrdown[factor=1.5]", GP, T.pyrdown, [IMG], {"factor": 1.5})
case("pyrdown[border_type=replicate]", GP, T.pyrdown, [IMG], {"border_type": "replicate"})
case("pyrup", GP, T.pyrup, [IMG])
case("pyrup[align_corners]", GP, T.pyrup, [IMG], {"align_corners": True})
case("PyrDown", GP, T.PyrDown(), [IMG])
case("PyrUp", GP, T.PyrUp(), [IMG])
case("build_pyramid", GP, T.build_pyramid, [IMG], {"max_level": 3})
case("build_laplacian_pyramid", GP, T.build_laplacian_pyramid, [IMG], {"max_level": 3})
case("ScalePyramid", GP, T.ScalePyramid(n_levels=2, min_size=8), [I.gray(1, 32, 32)])
case(
    "ScalePyramid[double_image]",
    GP,
    T.ScalePyramid(n_levels=2, min_size=8, double_image=True),
    [I.gray(1, 32, 32)],
)

# Thin-plate splines ---------------------------------------------------------------------------
SRC_PTS = I.rand(1, 6, 2, low=-0.8, high=0.8)
DST_PTS = SRC_PTS + I.randn(1, 6, 2, seed=1, scale=0.05)
KW, AW = T.get_tps_transform(DST_PTS, SRC_PTS)
case("get_tps_transform", GT, T.get_tps_transform, [SRC_PTS, DST_PTS])
case("warp_points_tps", GT, T.warp_points_tps, [I.rand(1, 10, 2, seed=4, low=-1.0), DST_PTS, KW, AW])
case("warp_image_tps", GT, T.warp_image_tps, [IMG, DST_PTS, KW, AW])
case("warp_image_tps[align_corners]", GT, T.warp_image_tps, [IMG, DST_PTS, KW, AW], {"align_corners": True})

# Elastic --------------------------------------------------------------------------------------
NOISE = I.rand(1, 2, I.H, I.W, low=-1.0, high=1.0)
case("elastic_transform2d", GE, T.elastic_transform2d, [IMG, NOISE])
case(
    "elastic_transform2d[kernel_size=7]",
    GE,
    T.elastic_transform2d,
    [IMG, NOISE],
    {"kernel_size": (7, 7), "sigma": (4.0, 4.0), "alpha": (2.0, 2.0)},
)

# Warper modules -------------------------------------------------------------------------------
case("HomographyWarper", GH, T.HomographyWarper(I.H, I.W), [IMG2, NORM_HOM])
case("HomographyWarper[mode=nearest]", GH, T.HomographyWarper(I.H, I.W, mode="nearest"), [IMG2, NORM_HOM])

# More options ---------------------------------------------------------------------------------
case(
    "warp_affine3d[padding_mode=border]",
    GW,
    T.warp_affine3d,
    [I.volume(B), AFF3],
    {"dsize": (8, 16, 16), "padding_mode": "border"},
)
case(
    "warp_perspective3d[border_mode=border]",
    GW,
    T.warp_perspective3d,
    [I.volume(B), I.homography3d(B)],
    {"dsize": (8, 16, 16), "border_mode": "border"},
)
case(
    "homography_warp[mode=nearest]",
    GW,
    T.homography_warp,
    [IMG2, NORM_HOM],
    {"dsize": DSIZE, "mode": "nearest"},
)
case(
    "homography_warp[padding_mode=border]",
    GW,
    T.homography_warp,
    [IMG2, NORM_HOM],
    {"dsize": DSIZE, "padding_mode": "border"},
)
case(
    "homography_warp[normalized_coordinates=False]",
    GW,
    T.homography_warp,
    [IMG2, HOM],
    {"dsize": DSIZE, "normalized_coordinates": False},
)
case("remap[padding_mode=border]", GW, T.remap, [IMG, MAP_X, MAP_Y], {"padding_mode": "border"})
case("remap[align_corners=True]", GW, T.remap, [IMG, MAP_X, MAP_Y], {"align_corners": True})
case(
    "rotate3d[center]",
    GA,
    T.rotate3d,
    [
        I.volume(B),
        I.angles(B),
        I.angles(B, seed=1),
        I.angles(B, seed=2),
        torch.tensor([[4.0, 6.0, 3.0]]).repeat(B, 1),
    ],
)
case(
    "rotate3d[mode=nearest]",
    GA,
    T.rotate3d,
    [I.volume(B), I.angles(B), I.angles(B, seed=1), I.angles(B, seed=2)],
    {"mode": "nearest"},
)
case("affine3d[mode=nearest]", GA, T.affine3d, [I.volume(B), AFF3], {"mode": "nearest"})
case("scale[padding_mode=border]", GA, T.scale, [IMG2, SCALE], {"padding_mode": "border"})
case("shear[align_corners=True]", GA, T.shear, [IMG2, SHEAR], {"align_corners": True})
case("translate[mode=nearest]", GA, T.translate, [IMG2, SHIFT], {"mode": "nearest"})
case("rescale[interpolation=nearest]", GA, T.rescale, [IMG], {"factor": 0.5, "interpolation": "nearest"})
case("resize[batch=2]", GA, T.resize, [IMG2], {"size": (16, 20)})
case(
    "resize[interpolation=bilinear,antialias,side=long]",
    GA,
    T.resize,
    [IMG],
    {"size": 20, "side": "long", "antialias": True},
)
case(
    "resize_to_be_divisible[side=long]",
    GA,
    T.resize_to_be_divisible,
    [IMG],
    {"divisible_factor": 16, "side": "long"},
)
case("crop_by_boxes[mode=nearest]", GC, T.crop_by_boxes, [IMG2, BOX, DST], {"mode": "nearest"})
case(
    "crop_by_indices[shape_compensation=pad]",
    GC,
    T.crop_by_indices,
    [IMG2, BOX],
    {"size": (16, 16), "shape_compensation": "pad"},
)
case(
    "crop_by_transform_mat[mode=nearest]",
    GC,
    T.crop_by_transform_mat,
    [IMG2, HOM],
    {"out_size": (16, 16), "mode": "nearest"},
)
case(
    "center_crop3d[interpolation=nearest]",
    GC,
    T.center_crop3d,
    [VOL],
    {"size": (4, 8, 8), "interpolation": "nearest"},
)
case(
    "crop_and_resize3d[interpolation=nearest]",
    GC,
    T.crop_and_resize3d,
    [I.volume(B), BOX3D],
    {"size": (4, 4, 4), "interpolation": "nearest"},
)
case(
    "build_pyramid[border_type=constant]",
    GP,
    T.build_pyramid,
    [IMG],
    {"max_level": 3, "border_type": "constant"},
)
case(
    "build_laplacian_pyramid[align_corners]",
    GP,
    T.build_laplacian_pyramid,
    [IMG],
    {"max_level": 3, "align_corners": True},
)
case(
    "elastic_transform2d[mode=nearest]",
    GE,
    T.elastic_transform2d,
    [IMG, NOISE],
    {"kernel_size": (7, 7), "sigma": (4.0, 4.0), "mode": "nearest"},
)
case(
    "warp_image_tps[padding_mode=border]",
    GT,
    T.warp_image_tps,
    [IMG, DST_PTS, KW, AW],
    {"padding_mode": "border"},
)
case(
    "HomographyWarper[padding_mode=border]",
    GH,
    T.HomographyWarper(I.H, I.W, padding_mode="border"),
    [IMG2, NORM_HOM],
)

# Image registration: the registrator optimises a model with a Python loop of optimiser steps.
case("Homography", GR, T.Homography(), [], note="the learnable homography model alone; no tensor inputs")
case("Similarity", GR, T.Similarity(), [], note="the learnable similarity model alone; no tensor inputs")
case(
    "ImageRegistrator.register",
    GR,
    T.ImageRegistrator("similarity", num_iterations=3, pyramid_levels=1),
    [I.gray(1, 16, 20), I.gray(1, 16, 20, seed=1)],
    method="register",
    atol=1e-3,
    note="an optimisation loop (Adam steps on the model parameters) runs inside the call",
    skip="optimises with autograd inside the call; the probes run under torch.no_grad()",
)
exclude("kornia.geometry.transform.BaseModel", reason="abstract base of the registration models")
exclude("kornia.geometry.transform.BaseWarper", reason="abstract base of the warpers")

# Settings Kornia's own survey measures, written so that `capmap diff` pairs the two surveys'
# cases one to one.
case(
    "warp_perspective[mode=nearest,padding_mode=border]",
    GW,
    T.warp_perspective,
    [IMG2, HOM],
    {"dsize": DSIZE, "mode": "nearest", "padding_mode": "border"},
)
case("warp_perspective[batch2,resize]", GW, T.warp_perspective, [IMG2, HOM], {"dsize": (24, 30)})
case(
    "warp_affine[align_corners=False,padding_mode=reflection]",
    GW,
    T.warp_affine,
    [IMG2, AFF],
    {"dsize": DSIZE, "align_corners": False, "padding_mode": "reflection"},
)
case(
    "resize[antialias,interpolation=area]",
    GA,
    T.resize,
    [IMG],
    {"size": (16, 20), "antialias": True, "interpolation": "area"},
)
case(
    "resize[interpolation=bicubic,align_corners=True]",
    GA,
    T.resize,
    [IMG],
    {"size": (16, 20), "interpolation": "bicubic", "align_corners": True},
)
case("resize[int,side=short]", GA, T.resize, [IMG], {"size": 12, "side": "short"})
case(
    "remap[normalized_coordinates,mode=nearest]",
    GW,
    T.remap,
    [IMG, MAP_X / (I.W - 1) * 2 - 1, MAP_Y / (I.H - 1) * 2 - 1],
    {"normalized_coordinates": True, "align_corners": True, "mode": "nearest"},
)
case("rescale[factor=tuple]", GA, T.rescale, [IMG], {"factor": (0.5, 0.75)})
case("scale[scale_factor=scalar]", GA, T.scale, [IMG2, SCALE[:, :1]])


# Methods of the image registrator, homography models and pyramids ---------------------------------
# Image registration and pyramids --------------------------------------------------------------
G_REGISTRATION = "geometry.transform"
case(
    "Homography.forward_inverse",
    G_REGISTRATION,
    Homography(),
    [],
    method="forward_inverse",
    note="the model's own parameters",
)
case(
    "Similarity.forward_inverse",
    G_REGISTRATION,
    Similarity(),
    [],
    method="forward_inverse",
    note="the model's own parameters",
)
REGISTRATOR = ImageRegistrator("similarity", num_iterations=1, pyramid_levels=1)
SRC = I.image(1, h=16, w=16)
case("ImageRegistrator.warp_src_into_dst", G_REGISTRATION, REGISTRATOR, [SRC], method="warp_src_into_dst")
case("ImageRegistrator.warp_dst_into_src", G_REGISTRATION, REGISTRATOR, [SRC], method="warp_dst_into_src")
case(
    "ImageRegistrator.warp_dst_inro_src",
    G_REGISTRATION,
    REGISTRATOR,
    [SRC],
    method="warp_dst_inro_src",
    note="deprecated misspelt alias of warp_dst_into_src, still public in 0.9",
)
case(
    "ImageRegistrator.get_single_level_loss",
    G_REGISTRATION,
    REGISTRATOR,
    [SRC, I.image(1, h=16, w=16, seed=1), torch.eye(3)[None]],
    method="get_single_level_loss",
)
case(
    "ScalePyramid.get_first_level",
    G_REGISTRATION,
    ScalePyramid(3, 1.6, 15),
    [I.gray(1)],
    method="get_first_level",
)

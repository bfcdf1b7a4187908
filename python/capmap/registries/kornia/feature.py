"""Kornia survey: feature (responses, local affine frames, descriptors, detectors, matchers).

Learned networks are built randomly initialised (`pretrained=False` and friends); those that can
only be built by downloading weights are listed with a skip reason.
"""

from __future__ import annotations

import kornia.feature as kf
import torch

from capmap import case, deferred

from ._inputs import H, W, descriptors, image, in_float64, lafs, points_in_image, rand, randn, smooth_image

# Random initialisation draws from the global generator: fix it so every import builds the same
# weights.
torch.manual_seed(0)

G_RESP = "feature.responses"
G_LAF = "feature.laf"
G_DESC = "feature.descriptors"
G_ORI = "feature.orientation"
G_DET = "feature.detectors"
G_MATCH = "feature.matching"
G_NET = "feature.networks"
QUICK = ("quick",)
WEIGHTS = "needs pretrained weights"

gray = smooth_image(c=1)
gray_batch = smooth_image(b=2, c=1, seed=1)
rgb = smooth_image()
pyramid_input = smooth_image(c=1).unsqueeze(2).expand(1, 1, 3, 32, 40).contiguous()
frames = lafs(1, 6)
frames_b = lafs(1, 6, seed=1)
patches32 = image(b=4, c=1, h=32, w=32, seed=2)

# Corner and blob responses.
case("harris_response", G_RESP, kf.harris_response, [gray])
case(
    "harris_response[k=tensor]",
    G_RESP,
    kf.harris_response,
    [gray_batch, torch.tensor([0.04, 0.06]).view(2, 1, 1, 1)],
)
case("harris_response[grads_mode=diff]", G_RESP, kf.harris_response, [gray], {"grads_mode": "diff"})
case(
    "harris_response[sigmas]", G_RESP, kf.harris_response, [gray_batch], {"sigmas": torch.tensor([1.0, 2.0])}
)
case("CornerHarris", G_RESP, kf.CornerHarris(0.04), [gray])
case("gftt_response", G_RESP, kf.gftt_response, [gray])
case("gftt_response[grads_mode=diff]", G_RESP, kf.gftt_response, [gray], {"grads_mode": "diff"})
case("CornerGFTT", G_RESP, kf.CornerGFTT(), [gray])
case("hessian_response", G_RESP, kf.hessian_response, [gray])
case("hessian_response[grads_mode=diff]", G_RESP, kf.hessian_response, [gray], {"grads_mode": "diff"})
case("BlobHessian", G_RESP, kf.BlobHessian(), [gray])
case("dog_response", G_RESP, kf.dog_response, [pyramid_input])
case("BlobDoG", G_RESP, kf.BlobDoG(), [pyramid_input])
case("dog_response_single", G_RESP, kf.dog_response_single, [gray])
case("dog_response_single[sigma2=2.0]", G_RESP, kf.dog_response_single, [gray], {"sigma2": 2.0})
case("BlobDoGSingle", G_RESP, kf.BlobDoGSingle(), [gray])

# Local affine frames (B x N x 2 x 3).
case("get_laf_center", G_LAF, kf.get_laf_center, [frames])
case("get_laf_scale", G_LAF, kf.get_laf_scale, [frames])
case("get_laf_orientation", G_LAF, kf.get_laf_orientation, [frames])
case("set_laf_orientation", G_LAF, kf.set_laf_orientation, [frames, rand(1, 6, 1, high=360.0, seed=3)])
case("rotate_laf", G_LAF, kf.rotate_laf, [frames, rand(1, 6, 1, high=90.0, seed=4)])
case("scale_laf", G_LAF, kf.scale_laf, [frames, 2.0])
case("scale_laf[scale=tensor]", G_LAF, kf.scale_laf, [frames, rand(1, 6, 1, 1, low=0.5, high=2.0, seed=5)])
case("make_upright", G_LAF, kf.make_upright, [frames])
centers = points_in_image(1, 6, seed=6)
case("laf_from_center_scale_ori", G_LAF, kf.laf_from_center_scale_ori, [centers])
case(
    "laf_from_center_scale_ori[scale,ori]",
    G_LAF,
    kf.laf_from_center_scale_ori,
    [centers, rand(1, 6, 1, 1, low=2.0, high=5.0, seed=7), rand(1, 6, 1, high=180.0, seed=8)],
)
with torch.no_grad():
    three_points = kf.laf_to_three_points(frames)
case("laf_to_three_points", G_LAF, kf.laf_to_three_points, [frames])
case("laf_from_three_points", G_LAF, kf.laf_from_three_points, [three_points])
ellipses = torch.cat([centers, torch.tensor([[[0.1, 0.0, 0.1]]]).expand(1, 6, 3)], dim=-1)
case("ellipse_to_laf", G_LAF, kf.ellipse_to_laf, [ellipses])
case("laf_is_valid", G_LAF, kf.laf_is_valid, [frames])
case("laf_is_filled", G_LAF, kf.laf_is_filled, [frames], note="the laf check returns a Python bool")
case("laf_is_inside_image", G_LAF, kf.laf_is_inside_image, [frames, gray])
case("laf_is_inside_image[border=2]", G_LAF, kf.laf_is_inside_image, [frames, gray], {"border": 2})
case("laf_to_boundary_points", G_LAF, kf.laf_to_boundary_points, [frames])
case("laf_to_boundary_points[n_pts=8]", G_LAF, kf.laf_to_boundary_points, [frames], {"n_pts": 8})
case("normalize_laf", G_LAF, kf.normalize_laf, [frames, gray])
with torch.no_grad():
    normalized_frames = kf.normalize_laf(frames, gray)
case("denormalize_laf", G_LAF, kf.denormalize_laf, [normalized_frames, gray])
homography = torch.tensor([[[1.0, 0.05, 1.0], [-0.02, 1.0, 2.0], [0.0005, 0.0, 1.0]]])
case("perspective_transform_lafs", G_LAF, kf.perspective_transform_lafs, [homography, frames])
case("extract_patches_simple", G_LAF, kf.extract_patches_simple, [gray, frames], {"PS": 16})
case("extract_patches_simple[rgb]", G_LAF, kf.extract_patches_simple, [rgb, frames], {"PS": 16})
case("extract_patches_from_pyramid", G_LAF, kf.extract_patches_from_pyramid, [gray, frames], {"PS": 16})

# Patch descriptors (N x 1 x PS x PS patches).
case("SIFTDescriptor", G_DESC, kf.SIFTDescriptor(32), [patches32], tags=QUICK)
case("SIFTDescriptor[rootsift=False]", G_DESC, kf.SIFTDescriptor(32, rootsift=False), [patches32])
case("SIFTDescriptor[num_spatial_bins=2]", G_DESC, kf.SIFTDescriptor(32, num_spatial_bins=2), [patches32])
case("DenseSIFTDescriptor", G_DESC, kf.DenseSIFTDescriptor(), [gray])
case("DenseSIFTDescriptor[stride=2]", G_DESC, kf.DenseSIFTDescriptor(stride=2), [gray])
case("SIFTDescriptorFromPyramid", G_DESC, kf.SIFTDescriptorFromPyramid(), [gray, frames])
with torch.no_grad():
    sift_descs = kf.SIFTDescriptor(32)(patches32)
case(
    "convert_sift_descriptor_layout",
    G_DESC,
    kf.convert_sift_descriptor_layout,
    [sift_descs],
    {"source": "kornia", "target": "opencv"},
)
case(
    "MKDDescriptor",
    G_DESC,
    kf.MKDDescriptor(whitening=None),
    [patches32],
    note="whitening=None: the whitening tables are downloaded",
)
case(
    "MKDDescriptor[kernel_type=polar]",
    G_DESC,
    kf.MKDDescriptor(kernel_type="polar", whitening=None),
    [patches32],
)
case("MKDDescriptor[whitening=pcawt]", G_DESC, kf.MKDDescriptor, [patches32], skip=WEIGHTS)
case("HardNet", G_DESC, deferred(kf.HardNet, pretrained=False), [patches32])
case("HardNet8", G_DESC, deferred(kf.HardNet8, pretrained=False), [patches32])
case("HyNet", G_DESC, deferred(kf.HyNet, pretrained=False), [patches32])
case("SOSNet", G_DESC, deferred(kf.SOSNet, pretrained=False), [patches32])
case("TFeat", G_DESC, deferred(kf.TFeat, pretrained=False), [patches32])
case("FilterResponseNorm2d", G_DESC, kf.FilterResponseNorm2d(8), [randn(2, 8, 8, 8, seed=9)])
case("TLU", G_DESC, kf.TLU(8), [randn(2, 8, 8, 8, seed=9)])
case("LAFDescriptor", G_DESC, kf.LAFDescriptor(kf.SIFTDescriptor(32)), [gray, frames])
case(
    "LAFDescriptor[HardNet]",
    G_DESC,
    deferred(kf.LAFDescriptor, deferred(kf.HardNet, pretrained=False)),
    [gray, frames],
)
case(
    "get_laf_descriptors",
    G_DESC,
    kf.get_laf_descriptors,
    [gray, frames],
    {"patch_descriptor": kf.SIFTDescriptor(32)},
)

# Orientation and affine shape.
case("PatchDominantGradientOrientation", G_ORI, kf.PatchDominantGradientOrientation(32), [patches32])
case("OriNet", G_ORI, kf.OriNet(pretrained=False), [patches32])
case("LAFOrienter", G_ORI, kf.LAFOrienter(32), [frames, gray])
case(
    "LAFOrienter[OriNet]",
    G_ORI,
    kf.LAFOrienter(32, angle_detector=kf.OriNet(pretrained=False)),
    [frames, gray],
)
case("PassLAF", G_ORI, kf.PassLAF(), [frames, gray])
case(
    "PatchAffineShapeEstimator",
    G_ORI,
    kf.PatchAffineShapeEstimator(19),
    [image(b=4, c=1, h=19, w=19, seed=10)],
)
case("LAFAffineShapeEstimator", G_ORI, kf.LAFAffineShapeEstimator(32), [frames, gray])
case("LAFAffNetShapeEstimator", G_ORI, kf.LAFAffNetShapeEstimator(pretrained=False), [frames, gray])

# Detectors: a fixed number of features so the output shapes are static.
case("ScaleSpaceDetector", G_DET, kf.ScaleSpaceDetector(num_features=20), [gray])
case(
    "ScaleSpaceDetector[BlobHessian]",
    G_DET,
    kf.ScaleSpaceDetector(num_features=20, resp_module=kf.BlobHessian()),
    [gray],
)
case("KeyNet", G_DET, kf.KeyNet(pretrained=False), [gray])
case("KeyNetDetector", G_DET, kf.KeyNetDetector(pretrained=False, num_features=20), [gray])
case(
    "MultiResolutionDetector",
    G_DET,
    kf.MultiResolutionDetector(kf.KeyNet(pretrained=False), num_features=20),
    [gray],
)
case("SIFTFeature", G_DET, kf.SIFTFeature(num_features=20), [gray])
case("SIFTFeature[upright]", G_DET, kf.SIFTFeature(num_features=20, upright=True), [gray])
case("SIFTFeatureScaleSpace", G_DET, kf.SIFTFeatureScaleSpace(num_features=20), [gray])
gftt_sift = kf.LocalFeature(
    kf.ScaleSpaceDetector(num_features=20, resp_module=kf.CornerGFTT()),
    kf.LAFDescriptor(kf.SIFTDescriptor(32)),
)
case("LocalFeature", G_DET, gftt_sift, [gray])
for composite in (
    kf.DoGHardNet,
    kf.DoGAffNetHardNet,
    kf.GFTTAffNetHardNet,
    kf.HesAffNetHardNet,
    kf.KeyNetHardNet,
    kf.KeyNetAffNetHardNet,
):
    case(
        composite.__name__,
        G_DET,
        composite,
        [gray],
        skip=WEIGHTS,
        note="always loads pretrained HardNet/AffNet",
    )

# Matchers on descriptor sets (N x D).
# The second set is the first, reordered and perturbed, so the ratio tests find matches to return.
desc_a = descriptors(12)
desc_b = torch.nn.functional.normalize(desc_a[:10].flip(0) + 0.05 * descriptors(10, seed=11), dim=-1)
case("match_nn", G_MATCH, kf.match_nn, [desc_a, desc_b])
case("match_mnn", G_MATCH, kf.match_mnn, [desc_a, desc_b], tags=QUICK)
case("match_snn", G_MATCH, kf.match_snn, [desc_a, desc_b])
case("match_snn[th=0.95]", G_MATCH, kf.match_snn, [desc_a, desc_b], {"th": 0.95})
case("match_smnn", G_MATCH, kf.match_smnn, [desc_a, desc_b])
case(
    "match_smnn_batched",
    G_MATCH,
    kf.match_smnn_batched,
    [descriptors(12).view(1, 12, 32), descriptors(10, seed=11).view(1, 10, 32)],
)
case("match_nn[dm]", G_MATCH, kf.match_nn, [desc_a, desc_b, torch.cdist(desc_a, desc_b)])
lafs_a, lafs_b = lafs(1, 12, seed=12), lafs(1, 10, seed=13)
case("match_fginn", G_MATCH, kf.match_fginn, [desc_a, desc_b, lafs_a, lafs_b])
case("match_fginn[mutual]", G_MATCH, kf.match_fginn, [desc_a, desc_b, lafs_a, lafs_b], {"mutual": True})
case("DescriptorMatcher", G_MATCH, kf.DescriptorMatcher(), [desc_a, desc_b])
for mode in ("nn", "mnn", "smnn"):
    case(f"DescriptorMatcher[match_mode={mode}]", G_MATCH, kf.DescriptorMatcher(mode, 0.95), [desc_a, desc_b])
case(
    "GeometryAwareDescriptorMatcher",
    G_MATCH,
    kf.GeometryAwareDescriptorMatcher(),
    [desc_a, desc_b, lafs_a, lafs_b],
)
# AdaLAM needs many putative matches to have something to filter.
many_a, many_b = descriptors(200, seed=14), descriptors(200, seed=15)
many_lafs_a, many_lafs_b = lafs(1, 200, h=64, w=64, seed=16), lafs(1, 200, h=64, w=64, seed=17)
case(
    "match_adalam",
    G_MATCH,
    kf.match_adalam,
    [many_a, many_b, many_lafs_a, many_lafs_b],
    {"hw1": (64, 64), "hw2": (64, 64)},
)
case(
    "GeometryAwareDescriptorMatcher[match_mode=adalam]",
    G_MATCH,
    kf.GeometryAwareDescriptorMatcher("adalam"),
    [many_a, many_b, many_lafs_a, many_lafs_b],
)
# A smooth image has no corner for SIFT to find: blocks of random grey, 8 x 8 pixels each.
BLOCKS = torch.nn.functional.interpolate(
    torch.rand(1, 1, 8, 10, generator=torch.Generator().manual_seed(3)), size=(64, 80), mode="nearest"
)
case(
    "LocalFeatureMatcher",
    G_MATCH,
    kf.LocalFeatureMatcher(gftt_sift, kf.DescriptorMatcher("snn", 0.9)),
    [{"image0": BLOCKS, "image1": BLOCKS.roll(2, dims=-1)}],
    note="random blocks (SIFT finds corners), the second image shifted by 2 pixels, so features match",
)

# Learned detectors, descriptors and matchers, randomly initialised.
square = smooth_image(h=32, w=32)
case("DISK", G_NET, deferred(kf.DISK, desc_dim=32), [square], {"n": 20})
case(
    "DISK[heatmap_and_dense_descriptors]",
    G_NET,
    deferred(kf.DISK, desc_dim=32),
    [square],
    method="heatmap_and_dense_descriptors",
)
case("ALIKED", G_NET, deferred(kf.ALIKED, max_num_keypoints=20), [square])
case("XFeatModel", G_NET, deferred(kf.XFeatModel), [square])
case(
    "XFeat",
    G_NET,
    deferred(kf.XFeat, top_k=20, detection_threshold=0.0),
    [square],
    method="detectAndCompute",
    note="forward is not defined; detectAndCompute is the entry point",
)
case(
    "XFeat[detectAndComputeDense]",
    G_NET,
    deferred(kf.XFeat, top_k=20),
    [square],
    method="detectAndComputeDense",
)
case("DeFMO", G_NET, deferred(kf.DeFMO, pretrained=False), [image(c=6, h=16, w=16, seed=19)])
# 64 x 64 is the smallest input the hourglass backbone accepts; the line post-processing makes
# these the slowest cases of the area (seconds on one core).
SLOW_SOLD2 = "the smallest valid input (64 x 64) takes several seconds eagerly on one core"
case(
    "SOLD2_detector",
    G_NET,
    deferred(kf.SOLD2_detector, pretrained=False),
    [smooth_image(c=1, h=64, w=64)],
    note=SLOW_SOLD2,
)
case("SOLD2", G_NET, deferred(kf.SOLD2, pretrained=False), [smooth_image(c=1, h=64, w=64)], note=SLOW_SOLD2)
case(
    "LoFTR",
    G_NET,
    deferred(kf.LoFTR, pretrained=None),
    [{"image0": smooth_image(c=1, h=64, w=64), "image1": smooth_image(c=1, h=64, w=64, seed=20)}],
    empty="random weights give no confident coarse match (even at threshold 0): the outputs are empty",
)
glue = kf.LightGlue(None, input_dim=32, descriptor_dim=32, num_heads=2, n_layers=2)
glue_kpts = points_in_image(1, 12, seed=21)
glue_kpts_b = points_in_image(1, 10, seed=22)
case(
    "LightGlue",
    G_NET,
    glue,
    [
        {
            "image0": {
                "keypoints": glue_kpts,
                "descriptors": descriptors(12).view(1, 12, 32),
                "image_size": torch.tensor([[40, 32]]),
            },
            "image1": {
                "keypoints": glue_kpts_b,
                "descriptors": descriptors(10, seed=11).view(1, 10, 32),
                "image_size": torch.tensor([[40, 32]]),
            },
        }
    ],
    note="features=None: random weights, 2 layers of width 32",
)
case(
    "DeDoDe",
    G_NET,
    kf.DeDoDe,
    [square],
    skip=WEIGHTS,
    note="builds a DINOv2 backbone from downloaded weights",
)
case("LightGlueMatcher", G_NET, kf.LightGlueMatcher, [desc_a, desc_b], skip=WEIGHTS)
case("OnnxLightGlue", G_NET, kf.OnnxLightGlue, [desc_a, desc_b], skip=WEIGHTS, note="downloads an ONNX model")
case(
    "InterpolateSparse2d",
    G_NET,
    kf.InterpolateSparse2d(),
    [randn(1, 16, 8, 10, seed=23), points_in_image(1, 12, h=32, w=40, seed=24), 32, 40],
)


# Methods of kornia.feature classes ----------------------------------------------------------------
# Their random weights come from a seed of their own, whatever the cases above drew.
torch.manual_seed(0)
GF = "feature.methods"
square_pair = smooth_image(c=3, h=32, w=32, seed=1)
aliked = deferred(kf.ALIKED, max_num_keypoints=20)
case("ALIKED.extract_dense_map", GF, aliked, [square_pair], method="extract_dense_map")
case("ALIKED.forward_laf", GF, aliked, [square_pair], method="forward_laf")
# Random weights score every point low: threshold 0 keeps the top_k, so there is something to match.
xfeat = deferred(kf.XFeat, top_k=20, detection_threshold=0.0)
case("XFeat.match_xfeat", GF, xfeat, [square_pair, square_pair.flip(-1)], method="match_xfeat")
case(
    "XFeat.match_xfeat_star",
    GF,
    xfeat,
    [square_pair, square_pair.flip(-1)],
    method="match_xfeat_star",
    empty="random weights: the refinement keeps no match of the mirrored pair",
)
sift = kf.SIFTDescriptor(32)
case("SIFTDescriptor.get_pooling_kernel", GF, sift, [], method="get_pooling_kernel", note="no tensor input")
case(
    "SIFTDescriptor.get_weighting_kernel", GF, sift, [], method="get_weighting_kernel", note="no tensor input"
)
dense = kf.DenseSIFTDescriptor()
case("DenseSIFTDescriptor.get_gradient_histograms", GF, dense, [gray], method="get_gradient_histograms")
case(
    "DenseSIFTDescriptor.get_pooling_kernel",
    GF,
    dense,
    [],
    method="get_pooling_kernel",
    note="no tensor input",
)
case(
    "InterpolateSparse2d.normgrid",
    GF,
    kf.InterpolateSparse2d(),
    [rand(1, 8, 2, high=30.0, seed=2), 32, 32],
    method="normgrid",
)
keynet = kf.KeyNetDetector(pretrained=False, num_features=20)
case("KeyNetDetector.detect", GF, keynet, [gray], method="detect")
case(
    "KeyNetDetector.detect_features_on_single_level",
    GF,
    keynet,
    [gray, 10, (1.0, 1.0)],
    method="detect_features_on_single_level",
)
case("KeyNetDetector.remove_borders", GF, keynet, [randn(1, 1, H, W, seed=3), 4], method="remove_borders")
case("ScaleSpaceDetector.detect", GF, kf.ScaleSpaceDetector(num_features=20), [gray, 20], method="detect")
small_glue = kf.LightGlue(None, input_dim=32, descriptor_dim=32, num_heads=2, n_layers=2)
conf = rand(1, 16, seed=4)
case("LightGlue.check_if_stop", GF, small_glue, [conf, rand(1, 16, seed=5), 0, 32], method="check_if_stop")
case("LightGlue.get_pruning_mask", GF, small_glue, [conf, rand(1, 16, seed=5), 0], method="get_pruning_mask")
sift_matcher = kf.LocalFeatureMatcher(kf.SIFTFeature(50), kf.DescriptorMatcher("snn", 0.9))
case(
    "LocalFeatureMatcher.extract_features",
    GF,
    sift_matcher,
    [smooth_image(c=1, h=48, w=64, seed=6)],
    method="extract_features",
)
case(
    "LocalFeatureMatcher.no_match_output",
    GF,
    sift_matcher,
    ["cpu", torch.float32],
    method="no_match_output",
    note="empty tensors: no tensor input",
    empty="returns the empty result a matcher gives when nothing matches",
    constant="builds empty tensors from a device and a dtype",
)
case(
    "SIFTDescriptorFromPyramid.orient_and_describe",
    GF,
    kf.SIFTDescriptorFromPyramid(),
    [gray, torch.tensor([[[[6.0, 0.0, 20.0], [0.0, 6.0, 16.0]]]])],
    method="orient_and_describe",
)

# Operators of kornia.feature's modules that its __all__ does not list (Kornia's own survey
# probes them): `capmap coverage` reports these cases apart, as not exported.
case("sift_describe", GF, kf.siftdesc.sift_describe, [randn(4, 1, 32, 32, seed=7)], {"patch_size": 32})
case(
    "get_sift_pooling_kernel",
    GF,
    kf.siftdesc.get_sift_pooling_kernel,
    [],
    {"ksize": 9},
    note="no tensor input",
)
case(
    "generate_patch_grid_from_normalized_LAF",
    GF,
    kf.laf.generate_patch_grid_from_normalized_LAF,
    [gray, torch.tensor([[[[0.2, 0.0, 0.5], [0.0, 0.2, 0.5]]]]), 8],
)
steerer = kf.steerers.DiscreteSteerer(in_float64(torch.linalg.qr, randn(16, 16, seed=8))[0])
case("DiscreteSteerer", GF, steerer, [randn(1, 8, 16, seed=9)])
case(
    "DiscreteSteerer.steer_descriptions",
    GF,
    steerer,
    [randn(1, 8, 16, seed=9)],
    {"steerer_power": 2, "normalize": True},
    method="steer_descriptions",
)
case(
    "DescriptorMatcherWithSteerer",
    GF,
    kf.matching.DescriptorMatcherWithSteerer(steerer, steerer_order=4, match_mode="mnn"),
    [randn(8, 16, seed=10), randn(8, 16, seed=11)],
)
loftr = deferred(kf.LoFTR, pretrained=None)
case(
    "LoFTR.extract_features",
    GF,
    loftr,
    [smooth_image(c=1, h=64, w=64, seed=22)],
    method="extract_features",
    note="random weights",
)
sold2 = deferred(kf.SOLD2, pretrained=False)
segments = torch.tensor([[[5.0, 5.0], [30.0, 40.0]], [[10.0, 50.0], [50.0, 10.0]]])
line_desc = randn(1, 128, 16, 16, seed=23)
case(
    "SOLD2.match",
    GF,
    sold2,
    [segments, segments.flip(0), line_desc, randn(1, 128, 16, 16, seed=24)],
    method="match",
    note="matches two sets of line segments by their dense descriptors",
)
_dedode: list[kf.DeDoDe] = []


def dedode() -> kf.DeDoDe:
    """DeDoDe with random VGG weights (28 M parameters), built on first use so that importing the
    registry stays fast; the DINOv2 descriptor (`G`, the default) needs downloaded weights."""
    if not _dedode:
        torch.manual_seed(0)
        _dedode.append(kf.DeDoDe(detector_model="L", descriptor_model="B", amp_dtype=torch.float32).eval())
    return _dedode[0]


DEDODE_NOTE = "random weights, VGG descriptor (B); the network is built on the first call"
case(
    "DeDoDe.detect",
    GF,
    lambda images: dedode().detect(images, n=10),
    [square_pair],
    covers="kornia.feature.DeDoDe.detect",
    note=DEDODE_NOTE,
)
case(
    "DeDoDe.describe",
    GF,
    lambda images, keypoints: dedode().describe(images, keypoints),
    [square_pair, rand(1, 10, 2, low=-0.9, high=0.9, seed=25)],
    covers="kornia.feature.DeDoDe.describe",
    note=DEDODE_NOTE + "; keypoints in normalised coordinates",
)

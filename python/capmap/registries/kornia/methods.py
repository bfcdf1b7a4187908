"""Kornia survey: public methods of feature, loss, enhance, filter, image, sensor, contrib,
tracking and model classes that the area files probe only through `forward`.

Each case is `Class.method` on an instance built here with random weights and small inputs.
"""

from __future__ import annotations

import kornia.contrib as kc
import kornia.enhance as ke
import kornia.feature as kf
import kornia.filters as kfi
import kornia.geometry.camera as kornia_camera
import kornia.image as ki
import kornia.losses as kl
import kornia.sensors.camera as cam
import kornia.tracking as kt
import torch
from kornia.models import dexined, tiny_vit
from kornia.models.yunet.processors import PriorBox
from kornia.models.yunet.processors import decode as yunet_decode

from capmap import case, deferred, exclude

from ._inputs import H, W, binary_mask, image, rand, randn, smooth_image, tiny_rtdetr_config

# Random initialisation draws from the global generator: fix it so every import builds the same
# weights.
torch.manual_seed(0)

RANDOM = "RANSAC or sampling inside: values are not compared"

# Feature -----------------------------------------------------------------------------------------
GF = "feature.methods"
gray = smooth_image(c=1)
square = smooth_image(c=3, h=32, w=32, seed=1)
aliked = deferred(kf.ALIKED, max_num_keypoints=20)
case("ALIKED.extract_dense_map", GF, aliked, [square], method="extract_dense_map")
case("ALIKED.forward_laf", GF, aliked, [square], method="forward_laf")
# Random weights score every point low: threshold 0 keeps the top_k, so there is something to match.
xfeat = deferred(kf.XFeat, top_k=20, detection_threshold=0.0)
case("XFeat.match_xfeat", GF, xfeat, [square, square.flip(-1)], method="match_xfeat")
case(
    "XFeat.match_xfeat_star",
    GF,
    xfeat,
    [square, square.flip(-1)],
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
glue = kf.LightGlue(None, input_dim=32, descriptor_dim=32, num_heads=2, n_layers=2)
conf = rand(1, 16, seed=4)
case("LightGlue.check_if_stop", GF, glue, [conf, rand(1, 16, seed=5), 0, 32], method="check_if_stop")
case("LightGlue.get_pruning_mask", GF, glue, [conf, rand(1, 16, seed=5), 0], method="get_pruning_mask")
gftt_sift = kf.LocalFeatureMatcher(kf.SIFTFeature(50), kf.DescriptorMatcher("snn", 0.9))
case(
    "LocalFeatureMatcher.extract_features",
    GF,
    gftt_sift,
    [smooth_image(c=1, h=48, w=64, seed=6)],
    method="extract_features",
)
case(
    "LocalFeatureMatcher.no_match_output",
    GF,
    gftt_sift,
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
steerer = kf.steerers.DiscreteSteerer(torch.linalg.qr(randn(16, 16, seed=8))[0])
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
    [square],
    covers="kornia.feature.DeDoDe.detect",
    note=DEDODE_NOTE,
)
case(
    "DeDoDe.describe",
    GF,
    lambda images, keypoints: dedode().describe(images, keypoints),
    [square, rand(1, 10, 2, low=-0.9, high=0.9, seed=25)],
    covers="kornia.feature.DeDoDe.describe",
    note=DEDODE_NOTE + "; keypoints in normalised coordinates",
)

# kornia.geometry.camera.stereo's function form of StereoCamera.reproject_disparity_to_3D.
stereo_left = torch.tensor([[[48.0, 0.0, 19.5, 0.0], [0.0, 48.0, 15.5, 0.0], [0.0, 0.0, 1.0, 0.0]]])
stereo_right = stereo_left.clone()
stereo_right[:, 0, 3] = -4.8
with torch.no_grad():
    stereo_q = kornia_camera.StereoCamera(stereo_left, stereo_right).Q
case(
    "stereo.reproject_disparity_to_3D",
    "geometry.camera",
    kornia_camera.stereo.reproject_disparity_to_3D,
    [rand(1, H, W, 1, low=1.0, high=8.0, seed=32), stereo_q],
)

# Losses ------------------------------------------------------------------------------------------
GL = "losses.methods"
haus = kl.HausdorffERLoss(k=3)
pred = rand(1, 1, 16, 16, seed=12)
target = binary_mask(1, 1, 16, 16, seed=13).long()
case("HausdorffERLoss.get_kernel", GL, haus, [], method="get_kernel", note="no tensor input")
case("HausdorffERLoss.max_pool", GL, kl.HausdorffERLoss, [pred], method="max_pool")
case("HausdorffERLoss.perform_erosion", GL, haus, [pred, target], method="perform_erosion")
case(
    "HausdorffERLoss3D.max_pool",
    GL,
    kl.HausdorffERLoss3D,
    [rand(1, 1, 4, 8, 8, seed=14)],
    method="max_pool",
)
case(
    "HausdorffERLoss3D.get_kernel",
    GL,
    kl.HausdorffERLoss3D(k=3),
    [],
    method="get_kernel",
    note="no tensor input",
)
reference = rand(1, 16, 16, seed=15)
mi = kl.MILossFromRef2D(reference, num_bins=8)
other = kl.MILossFromRef2D.arrange_shape(rand(1, 16, 16, seed=16))
case("MILossFromRef2D.entropies", GL, mi, [other], method="entropies")
case(
    "MILossFromRef2D.trace_in_ref_mask",
    GL,
    mi,
    [other, torch.ones_like(other, dtype=torch.bool)],
    method="trace_in_ref_mask",
)
case("MILossFromRef2D.fix_mask", GL, kl.MILossFromRef2D, [None, other], method="fix_mask")
for owner in ("MILossFromRef2D", "MILossFromRef3D", "NMILossFromRef2D", "NMILossFromRef3D"):
    shaped = rand(2, 4, 4, seed=17) if owner.endswith("2D") else rand(2, 3, 4, 4, seed=17)
    case(f"{owner}.arrange_shape", GL, getattr(kl, owner), [shaped], method="arrange_shape")

# Enhance, filters --------------------------------------------------------------------------------
data = randn(20, 3, seed=18)
zca = ke.ZCAWhitening(compute_inv=True).fit(data)
case(
    "ZCAWhitening.inverse_transform",
    "enhance.methods",
    zca,
    [randn(4, 3, seed=19)],
    method="inverse_transform",
)
case(
    "ZCAWhitening.fit",
    "enhance.methods",
    ke.ZCAWhitening(),
    [data],
    method="fit",
    note="returns the fitted module: no tensor output",
)
case(
    "OtsuThreshold.transform_input",
    "filters.methods",
    kfi.OtsuThreshold(),
    [image()],
    method="transform_input",
)

# Image and sensors -------------------------------------------------------------------------------
layout = ki.ImageLayout(ki.ImageSize(H, W), 3, ki.ChannelsOrder.CHANNELS_FIRST)
bgr = ki.Image(image().squeeze(0), ki.PixelFormat(ki.ColorSpace.BGR, 32), layout)
case("Image.to_rgb", "image.methods", bgr, [], method="to_rgb", note="the Image container, no graph input")
case("Image.clone", "image.methods", bgr, [], method="clone")
case("Image.float", "image.methods", bgr, [], method="float")
size = ki.ImageSize(H, W)
params = torch.tensor([float(W), float(W), W / 2.0, H / 2.0])
pinhole = cam.PinholeModel(size, params)
ortho = cam.Orthographic(size, params)
case("PinholeModel.matrix", "sensors.methods", pinhole, [], method="matrix")
case(
    "PinholeModel.scale",
    "sensors.methods",
    pinhole,
    [torch.tensor(0.5)],
    method="scale",
    note="returns a PinholeModel",
)
case("Orthographic.matrix", "sensors.methods", ortho, [], method="matrix")
case("Orthographic.K", "sensors.methods", ortho, [], method="K")
for attr in ("fx", "fy", "cx", "cy"):
    case(
        f"Orthographic.{attr}",
        "sensors.methods",
        lambda p, attr=attr: getattr(cam.Orthographic(size, p), attr),
        [params],
        covers=f"kornia.sensors.camera.Orthographic.{attr}",
        note="reads a property of a camera built from the inputs",
    )

# Contrib and tracking ----------------------------------------------------------------------------
points = torch.cat([randn(30, 2, seed=20) + 4.0, randn(30, 2, seed=21) - 4.0])
kmeans = kc.KMeans(2, None, max_iterations=10, seed=0)
kmeans.fit(points)
case(
    "KMeans.cluster_centers",
    "contrib.methods",
    lambda: kmeans.cluster_centers,
    [],
    covers="kornia.contrib.KMeans.cluster_centers",
    note="reads the fitted centres: no graph input",
)
case(
    "KMeans.cluster_assignments",
    "contrib.methods",
    lambda: kmeans.cluster_assignments,
    [],
    covers="kornia.contrib.KMeans.cluster_assignments",
    note="reads the fitted assignments: no graph input",
)
# Builders with a configuration route, and the networks inside the wrappers.
DETECTOR_CONFIG = tiny_rtdetr_config()
case(
    "RTDETRDetectorBuilder.build",
    "contrib.methods",
    deferred(
        kc.RTDETRDetectorBuilder.build,
        config=DETECTOR_CONFIG,
        pretrained=False,
        image_size=64,
        confidence_threshold=0.0,
    ),
    [image(h=64, w=64, seed=26)],
    covers=("kornia.contrib.RTDETRDetectorBuilder.build", "kornia.contrib.ObjectDetector"),
    note="the ObjectDetector the builder makes around a small random RT-DETR",
)
edge = deferred(kc.EdgeDetectorBuilder.build, pretrained=False, image_size=64)
case(
    "EdgeDetectorBuilder.build",
    "contrib.methods",
    edge,
    [image(h=64, w=64, seed=27)],
    covers=("kornia.contrib.EdgeDetectorBuilder.build", "kornia.contrib.EdgeDetector"),
    note="the EdgeDetector the builder makes around a random DexiNed",
)
case(
    "EdgeDetector.model",
    "contrib.methods",
    deferred(getattr, edge, "model"),
    [image(h=64, w=64, seed=27)],
    covers="kornia.contrib.EdgeDetector",
    note="the detector's network without its pre- and post-processing",
)
face_boxes = torch.cat([rand(3, 14, high=60.0, seed=28), rand(3, 1, seed=29)], -1)
case(
    "FaceDetectorResult",
    "contrib.methods",
    lambda data: kc.face_detection.FaceDetectorResult(data).get_keypoint(kc.face_detection.FaceKeypoint.NOSE),
    [face_boxes],
    covers=(
        "kornia.contrib.face_detection.FaceDetectorResult.get_keypoint",
        "kornia.contrib.face_detection.FaceDetectorResult",
    ),
    note="reads a keypoint out of YuNet detections (rows of 15 numbers)",
)
FACE_WEIGHTS = (
    "needs downloaded weights: FaceDetector's constructor builds YuNet with pretrained=True and takes "
    "no configuration"
)
case(
    "FaceDetector", "contrib.methods", kc.face_detection.FaceDetector, [image(h=64, w=64)], skip=FACE_WEIGHTS
)
case(
    "FaceDetector.model",
    "contrib.methods",
    kc.face_detection.FaceDetector,
    [image(h=64, w=64)],
    skip=FACE_WEIGHTS,
)
priors = PriorBox([[10, 16, 24], [32, 48], [64, 96], [128, 192, 256]], [8, 16, 32, 64], False, (64, 64))
case(
    "processors.PriorBox",
    "models.methods",
    lambda: priors(),
    [],
    covers="kornia.models.yunet.processors.PriorBox",
    note="YuNet's anchor boxes for a 64x64 image: no tensor input",
)
with torch.no_grad():
    anchors = priors()
case(
    "processors.decode",
    "models.methods",
    yunet_decode,
    [0.1 * randn(anchors.shape[0], 14, seed=30), anchors, [0.1, 0.2]],
)
stitcher = kc.ImageStitcher(kf.LocalFeatureMatcher(kf.SIFTFeature(100), kf.DescriptorMatcher("snn", 0.9)))
left = torch.nn.functional.interpolate(rand(1, 3, 12, 16, seed=11), size=(48, 64), mode="bilinear")
right = left.roll(6, dims=-1)
case("ImageStitcher.preprocess", "contrib.methods", stitcher, [left, right], method="preprocess")
case(
    "ImageStitcher.postprocess",
    "contrib.methods",
    stitcher,
    [torch.cat([left, right], -1), torch.ones(1, 3, 48, 128)],
    method="postprocess",
)
case(
    "ImageStitcher.blend_image",
    "contrib.methods",
    stitcher,
    [left, right, torch.ones(1, 3, 48, 64)],
    method="blend_image",
)
case(
    "ImageStitcher.stitch_pair",
    "contrib.methods",
    stitcher,
    [left, right],
    method="stitch_pair",
    check=False,
    note=RANDOM,
)
with torch.no_grad():
    prepared = stitcher.preprocess(left, right)
    matched = stitcher.on_matcher(prepared)
case("ImageStitcher.on_matcher", "contrib.methods", stitcher, [prepared], method="on_matcher")
case(
    "ImageStitcher.estimate_transform",
    "contrib.methods",
    lambda k0, k1, b: stitcher.estimate_transform(keypoints0=k0, keypoints1=k1, batch_indexes=b),
    [matched["keypoints0"], matched["keypoints1"], matched["batch_indexes"]],
    covers="kornia.contrib.ImageStitcher.estimate_transform",
    check=False,
    note=RANDOM,
)
sift_matcher = kf.LocalFeatureMatcher(kf.SIFTFeature(100), kf.DescriptorMatcher("snn", 0.9))
# A blocky texture gives SIFT enough corners to match (and is quick to describe), so the tracker
# holds a homography to follow.
texture = torch.nn.functional.interpolate(rand(1, 1, 12, 16, seed=31), size=(64, 80), mode="bilinear")
tracker = kt.HomographyTracker(sift_matcher, sift_matcher, minimum_inliers_num=8)
tracker.set_target(texture)
case(
    "HomographyTracker.match_initial",
    "tracking.methods",
    tracker,
    [texture.roll(2, dims=-1)],
    method="match_initial",
    check=False,
    note=RANDOM,
)
with torch.no_grad():
    tracker.match_initial(texture.roll(2, dims=-1))
case(
    "HomographyTracker.track_next_frame",
    "tracking.methods",
    tracker,
    [texture.roll(3, dims=-1)],
    method="track_next_frame",
    check=False,
    note=RANDOM + "; follows the homography match_initial found at registry import",
)
case(
    "HomographyTracker.no_match",
    "tracking.methods",
    tracker,
    [],
    method="no_match",
    check=False,
    note="returns torch.empty(3, 3): uninitialised values, so only shape and dtype are compared",
    constant="no tensor input: returns a new uninitialised 3 x 3 tensor",
)

# Models ------------------------------------------------------------------------------------------
case(
    "DexiNed.get_features",
    "models.methods",
    deferred(dexined.DexiNed, pretrained=False),
    [image(h=64, w=64)],
    method="get_features",
)
case(
    "tiny_vit.Attention.build_attention_bias",
    "models.methods",
    tiny_vit.Attention,
    [(4, 4)],
    method="build_attention_bias",
    note="no tensor input",
)

exclude(
    "kornia.augmentation.*.set_rng_device_and_dtype", reason="sets the random generator's device and dtype"
)
for owner in ("EdgeDetector", "ObjectDetector", "SuperResolution", "TinyViT"):
    exclude(
        f"kornia.contrib.{owner}.from_config",
        reason="builds a model from a named configuration and downloads its weights; "
        "the model is probed with random weights",
    )

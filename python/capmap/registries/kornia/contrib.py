"""Kornia survey: contrib (patches, connected components, distance transform, clustering, models)."""

from __future__ import annotations

import kornia.contrib as kc
import kornia.feature as kf
import kornia.models as km
import torch

from capmap import case, deferred

from ._inputs import binary_mask, image, rand, randn, smooth_image, tiny_rtdetr_config

# Random initialisation draws from the global generator: fix it so every import builds the same
# weights.
torch.manual_seed(0)

G = "contrib"
QUICK = ("quick",)
WEIGHTS = "needs pretrained weights"

rgb = image()
gray = smooth_image(c=1)

# Patches: extract, then put back together.
case(
    "extract_tensor_patches", G, kc.extract_tensor_patches, [rgb], {"window_size": 8, "stride": 8}, tags=QUICK
)
case("extract_tensor_patches[overlap]", G, kc.extract_tensor_patches, [rgb], {"window_size": 8, "stride": 4})
case(
    "extract_tensor_patches[padding=2]",
    G,
    kc.extract_tensor_patches,
    [rgb],
    {"window_size": 8, "stride": 8, "padding": 2},
)
case(
    "extract_tensor_patches[allow_auto_padding]",
    G,
    kc.extract_tensor_patches,
    [rgb],
    {"window_size": 7, "stride": 7, "allow_auto_padding": True},
)
case("ExtractTensorPatches", G, kc.ExtractTensorPatches(8, 8), [rgb])
with torch.no_grad():
    patches = kc.extract_tensor_patches(rgb, window_size=8, stride=8)
case(
    "combine_tensor_patches",
    G,
    kc.combine_tensor_patches,
    [patches],
    {"original_size": (32, 40), "window_size": 8, "stride": 8},
)
case("CombineTensorPatches", G, kc.CombineTensorPatches((32, 40), 8, 8), [patches])
case(
    "compute_padding",
    G,
    kc.compute_padding,
    [(32, 40), 7, 7],
    note="pure integer arithmetic: no tensor output",
)

# Segmentation helpers.
blobs = (gray > 0.5).float()
case("connected_components", G, kc.connected_components, [blobs], {"num_iterations": 50})
case("connected_components[num_iterations=10]", G, kc.connected_components, [blobs], {"num_iterations": 10})
case("connected_components_union_find", G, kc.connected_components_union_find, [blobs])
case("distance_transform", G, kc.distance_transform, [binary_mask(1, 1, 32, 40, seed=1)])
case(
    "distance_transform[kernel_size=5]",
    G,
    kc.distance_transform,
    [binary_mask(1, 1, 32, 40, seed=1)],
    {"kernel_size": 5},
)
case("DistanceTransform", G, kc.DistanceTransform(), [binary_mask(1, 1, 32, 40, seed=1)])
case("histogram_matching", G, kc.histogram_matching, [rgb, image(seed=2)])
xp = torch.linspace(0, 1, 16)
case("interp", G, kc.interp, [rand(50, seed=3), xp, xp**2])
case(
    "diamond_square",
    G,
    kc.diamond_square,
    [(1, 1, 33, 33)],
    check=False,
    note="random by design: values are not compared",
)
case(
    "diamond_square[roughness=0.8]",
    G,
    kc.diamond_square,
    [(1, 1, 17, 17)],
    {"roughness": 0.8, "random_scale": 0.5},
    check=False,
)
case("Lambda", G, kc.Lambda(torch.sigmoid), [randn(1, 3, 8, 8, seed=4)])

# K-means: fitted at registry import with a fixed seed, then probed on predict and on fit.
points = torch.cat([randn(30, 2, seed=5) + 4.0, randn(30, 2, seed=6) - 4.0])
kmeans = kc.KMeans(2, None, max_iterations=10, seed=0)
kmeans.fit(points)
case(
    "KMeans",
    G,
    kmeans,
    [points],
    method="predict",
    note="fitted at registry import; predict assigns clusters",
)


def kmeans_fitted_centres(x: torch.Tensor) -> torch.Tensor:
    """KMeans.fit returns None: fit a fresh model (each path starts from the same state), then
    return the cluster centres the fit computed."""
    model = kc.KMeans(2, None, max_iterations=10, seed=0)
    model.fit(x)
    return model.cluster_centers


case(
    "KMeans[fit]",
    G,
    kmeans_fitted_centres,
    [points],
    covers="kornia.contrib.KMeans.fit",
    note="fit returns None: the fitted cluster centres are compared",
)

# Model wrappers from contrib, built around randomly initialised networks.
small_sr = km.small_sr.SmallSRNet(upscale_factor=2, pretrained=False)
super_res = kc.SuperResolution(small_sr, torch.nn.Identity(), torch.nn.Identity())
case("SuperResolution", G, super_res, [image(c=1, h=16, w=16, seed=7)], note="random SmallSRNet")
case(
    "SuperResolution[RRDBNet]",
    G,
    kc.SuperResolution(
        km.RRDBNet(3, 3, scale=2, num_feat=8, num_block=1, num_grow_ch=4),
        torch.nn.Identity(),
        torch.nn.Identity(),
    ),
    [image(h=16, w=16, seed=8)],
)
edge = deferred(kc.EdgeDetectorBuilder.build, pretrained=False, image_size=64)
case("EdgeDetector", G, edge, [image(h=64, w=64, seed=9)], note="random DexiNed")
case(
    "ObjectDetector",
    G,
    kc.ObjectDetector,
    [],
    skip=WEIGHTS,
    note="RT-DETR detector: the builder's default configuration downloads its weights",
)
case(
    "ImageStitcher",
    G,
    kc.ImageStitcher(kf.LocalFeatureMatcher(kf.SIFTFeature(100), kf.DescriptorMatcher("snn", 0.9))),
    [smooth_image(c=3, h=48, w=64, seed=11), smooth_image(c=3, h=48, w=64, seed=11).roll(8, dims=-1)],
    check=False,
    note="RANSAC inside: the result depends on random sampling",
)


# Methods of kornia.contrib classes ----------------------------------------------------------------
RANDOM = "RANSAC or sampling inside: values are not compared"
fitted_points = torch.cat([randn(30, 2, seed=20) + 4.0, randn(30, 2, seed=21) - 4.0])
kmeans = kc.KMeans(2, None, max_iterations=10, seed=0)  # bound again: the lambdas below read this one
kmeans.fit(fitted_points)
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

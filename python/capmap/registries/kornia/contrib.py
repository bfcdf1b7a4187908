"""Kornia survey: contrib (patches, connected components, distance transform, clustering, models)."""

from __future__ import annotations

import kornia.contrib as kc
import kornia.feature as kf
import kornia.models as km
import torch

from capmap import case, deferred

from ._inputs import binary_mask, image, rand, randn, smooth_image

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
tiny = kc.TinyViT(
    img_size=64,
    num_classes=10,
    embed_dims=(16, 32, 48, 64),
    depths=(1, 1, 1, 1),
    num_heads=(1, 2, 3, 4),
    window_sizes=(2, 2, 2, 2),
)
case("TinyViT", "models.tiny_vit", tiny, [image(h=64, w=64, seed=10)], note="small random configuration")
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

"""torchmetrics.functional.image: reference-based and no-reference image quality."""

from __future__ import annotations

import torchmetrics.functional.image as tmi

from capmap import case
from capmap.registries.torchmetrics._inputs import images

for name in (
    "error_relative_global_dimensionless_synthesis",
    "relative_average_spectral_error",
    "root_mean_squared_error_using_sliding_window",
    "spatial_correlation_coefficient",
    "spectral_angle_mapper",
    "spectral_distortion_index",
    "structural_similarity_index_measure",
    "universal_image_quality_index",
):
    tags = ("quick",) if name in {"structural_similarity_index_measure"} else ()
    case(name, "image", getattr(tmi, name), images(), tags=tags)
# data_range is required: the value range of the images (here [0, 1]).
case(
    "peak_signal_noise_ratio",
    "image",
    tmi.peak_signal_noise_ratio,
    images(),
    {"data_range": 1.0},
    tags=("quick",),
)
case(
    "multiscale_structural_similarity_index_measure",
    "image",
    tmi.multiscale_structural_similarity_index_measure,
    images(size=64),
    {"kernel_size": 3, "betas": (0.5, 0.5)},
)
case("visual_information_fidelity", "image", tmi.visual_information_fidelity, images(size=48))
case(
    "peak_signal_noise_ratio_with_blocked_effect",
    "image",
    tmi.peak_signal_noise_ratio_with_blocked_effect,
    images(channels=1),
    {"data_range": 1.0},
)
case("image_gradients", "image", tmi.image_gradients, images()[:1])
case("total_variation", "image", tmi.total_variation, images()[:1])
# The multispectral image at half resolution, the panchromatic one at full (as many channels).
_ms, _pan = images(channels=3, size=16)[0], images(channels=3, size=32)[1]
_pan_lr = images(channels=3, size=16)[1]  # given, so no resize through torchvision is needed
case(
    "spatial_distortion_index",
    "image.pansharpening",
    tmi.spatial_distortion_index,
    [images()[0], _ms, _pan, _pan_lr],
)
case(
    "quality_with_no_reference",
    "image.pansharpening",
    tmi.quality_with_no_reference,
    [images()[0], _ms, _pan, _pan_lr],
)

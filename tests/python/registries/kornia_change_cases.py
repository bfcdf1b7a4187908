"""Nine Kornia cases over filters, color, enhance and geometry: the registry of the change
selection tests (test_changed_selection.py), which edit one Kornia file and expect only the
cases that execute it to run again."""

from __future__ import annotations

import kornia
import torch
from capmap import case, library

# The probed library is Kornia wherever this file is copied to.
library("kornia")

# Fixed values: runs compare their results, so every run must see the same inputs.
IMAGE = [torch.rand(1, 3, 16, 16, generator=torch.Generator().manual_seed(0))]

case("gaussian_blur2d", "filters.blur", kornia.filters.gaussian_blur2d, IMAGE,
     kwargs={"kernel_size": (5, 5), "sigma": (1.5, 1.5)})  # fmt: skip
case("unsharp_mask", "filters.blur", kornia.filters.unsharp_mask, IMAGE,
     kwargs={"kernel_size": (3, 3), "sigma": (1.5, 1.5)})  # fmt: skip
case("box_blur", "filters.blur", kornia.filters.box_blur, IMAGE, kwargs={"kernel_size": (3, 3)})
case("median_blur", "filters.blur", kornia.filters.median_blur, IMAGE, kwargs={"kernel_size": (3, 3)})
case("sobel", "filters.edges", kornia.filters.sobel, IMAGE)
case("rgb_to_grayscale", "color.gray", kornia.color.rgb_to_grayscale, IMAGE)
case("rgb_to_hsv", "color.hsv", kornia.color.rgb_to_hsv, IMAGE)
case("adjust_brightness", "enhance.adjust", kornia.enhance.adjust_brightness, IMAGE, kwargs={"factor": 0.2})
case("hflip", "geometry.transform", kornia.geometry.transform.hflip, IMAGE)

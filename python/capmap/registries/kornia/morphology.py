"""Kornia survey: morphology (dilation, erosion and the operators built on them)."""

from __future__ import annotations

import kornia.morphology as km
import torch

from capmap import case

from ._inputs import binary_mask, image, rand

G = "morphology"
QUICK = ("quick",)

rgb = image()
kernel = torch.ones(3, 3)
cross = torch.tensor([[0.0, 1.0, 0.0], [1.0, 1.0, 1.0], [0.0, 1.0, 0.0]])
structuring = rand(3, 3, high=0.2, seed=1)

for op in (km.dilation, km.erosion, km.opening, km.closing, km.gradient, km.top_hat, km.bottom_hat):
    name = op.__name__
    quick = QUICK if name in ("dilation", "opening") else ()
    case(name, G, op, [rgb, kernel], tags=quick)
    case(f"{name}[kernel=cross]", G, op, [rgb, cross])
    case(f"{name}[border_type=constant]", G, op, [rgb, kernel], {"border_type": "constant"})
    case(f"{name}[engine=convolution]", G, op, [rgb, kernel], {"engine": "convolution"})
    case(f"{name}[structuring_element]", G, op, [rgb, kernel], {"structuring_element": structuring})

mask = binary_mask(1, 1, 32, 40, seed=2)
seed = mask * (rand(1, 1, 32, 40, seed=3) > 0.9).float()
case("reconstruction", G, km.reconstruction, [seed, mask], {"num_iters": 8})
case(
    "reconstruction[method=erosion]",
    G,
    km.reconstruction,
    [mask, seed],
    {"method": "erosion", "num_iters": 8},
)
case(
    "reconstruction[until_stable]",
    G,
    km.reconstruction,
    [seed, mask],
    note="iterates until stable: data-dependent loop",
)

"""Kornia survey: kornia.utils.

`kornia.utils` is deprecated in 0.9: each name is a shim that warns and forwards to the new home
(kornia.image, kornia.core, kornia.geometry ...). The shims are probed under `utils.<name>`
because kornia documents them as capturable wherever the target is; the new homes are probed
in their own areas.
"""

from __future__ import annotations

import warnings

import torch

from capmap import case

from ._inputs import image, labels, points_in_image, randn

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    import kornia.utils as ku

    to_tensor_shim = ku.ImageToTensor()

# Random initialisation draws from the global generator: fix it so every import builds the same
# weights.
torch.manual_seed(0)

G_SHIM = "utils.deprecated"


canvas = image(b=2)
red = torch.tensor([1.0, 0.0, 0.0])
hwc = image().squeeze(0).permute(1, 2, 0).contiguous()
spd = randn(2, 3, 3, seed=1)
spd = spd @ spd.transpose(-1, -2) + torch.eye(3)
case("utils.create_meshgrid", G_SHIM, ku.create_meshgrid, [8, 10])
case("utils.create_meshgrid3d", G_SHIM, ku.create_meshgrid3d, [4, 8, 10])
case(
    "utils.torch_meshgrid",
    G_SHIM,
    ku.torch_meshgrid,
    [[torch.arange(4.0), torch.arange(5.0)]],
    {"indexing": "ij"},
)
case("utils.eye_like", G_SHIM, ku.eye_like, [3, randn(2, 4, 4)])
case("utils.vec_like", G_SHIM, ku.vec_like, [3, randn(2, 4, 4)])
case(
    "utils.one_hot",
    G_SHIM,
    ku.one_hot,
    [labels(2, 8, 8, classes=4)],
    {"num_classes": 4, "device": torch.device("cpu"), "dtype": torch.float32},
)
case(
    "utils.draw_rectangle",
    G_SHIM,
    ku.draw_rectangle,
    [canvas, torch.tensor([[[2.0, 3.0, 20.0, 18.0]], [[5.0, 5.0, 30.0, 25.0]]])],
)
case(
    "utils.draw_line",
    G_SHIM,
    ku.draw_line,
    [canvas[0], torch.tensor([2.0, 3.0]), torch.tensor([30.0, 20.0]), red],
)
case("utils.draw_point2d", G_SHIM, ku.draw_point2d, [canvas[0], points_in_image(1, 8)[0].round().long(), red])
case(
    "utils.draw_convex_polygon",
    G_SHIM,
    ku.draw_convex_polygon,
    [
        canvas,
        torch.tensor([[[4.0, 4.0], [30.0, 6.0], [20.0, 26.0]]]).expand(2, 3, 2).contiguous(),
        red.expand(2, 3),
    ],
)
case("utils.image_to_tensor", G_SHIM, ku.image_to_tensor, [hwc.numpy()], note="takes a NumPy array")
case("utils.ImageToTensor", G_SHIM, to_tensor_shim, [hwc.numpy()], note="takes a NumPy array")
case("utils.tensor_to_image", G_SHIM, ku.tensor_to_image, [image()], note="returns a NumPy array")
case("utils.image_list_to_tensor", G_SHIM, ku.image_list_to_tensor, [[hwc, hwc.flip(0)]])
case(
    "utils.image_to_string",
    G_SHIM,
    ku.image_to_string,
    [image(h=8, w=8)[0]],
    {"max_width": 8},
    note="no tensor output: returns a text rendering",
)
case("utils.safe_inverse_with_mask", G_SHIM, ku.safe_inverse_with_mask, [spd])
case("utils.safe_solve_with_mask", G_SHIM, ku.safe_solve_with_mask, [randn(2, 3, 1, seed=2), spd])
case(
    "utils.is_mps_tensor_safe",
    G_SHIM,
    ku.is_mps_tensor_safe,
    [image()],
    note="no tensor output: returns a Python bool",
)
case(
    "utils.batched_forward",
    G_SHIM,
    ku.batched_forward,
    [torch.nn.Conv2d(3, 4, 3).eval(), image(b=4)],
    {"device": torch.device("cpu"), "batch_size": 2},
    note="the model (a Conv2d) keeps its weights as parameters, as in a user's export",
)

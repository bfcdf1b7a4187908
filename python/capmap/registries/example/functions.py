"""Example survey: plain torch functions, some of which are known to be hard to capture."""

import torch
import torch.nn.functional as F

from capmap import case, library

library("example")

# Fixed seed: the inputs are the same in every run, so results can be compared across runs.
_gen = torch.Generator().manual_seed(0)


def _image(*shape: int) -> torch.Tensor:
    return torch.rand(*shape, generator=_gen)


case("relu", "math.activation", torch.relu, [_image(2, 3, 8, 8) - 0.5])
case("softmax[dim1]", "math.activation", torch.softmax, [_image(2, 5, 4)], {"dim": 1})
case("softmax[last]", "math.activation", torch.softmax, [_image(2, 5, 4)], {"dim": -1})
case("matmul", "math.linalg", torch.matmul, [_image(4, 6), _image(6, 3)])
case("cumsum", "math.reduction", torch.cumsum, [_image(3, 7)], {"dim": 1})
case(
    "interpolate[bilinear]",
    "nn.functional.resize",
    F.interpolate,
    [_image(1, 3, 8, 8)],
    {"scale_factor": 2.0, "mode": "bilinear", "align_corners": False},
)
case("sort", "tensor.sorting", torch.sort, [_image(4, 9)], {"dim": -1})
case(
    "nonzero",
    "tensor.indexing",
    torch.nonzero,
    [(_image(5, 5) > 0.5).float()],
    note="output shape depends on the values",
)
case("unique", "tensor.sets", torch.unique, [torch.tensor([3, 1, 2, 3, 1])], note="data-dependent size")
case("rand_like", "tensor.random", torch.rand_like, [_image(3, 4)], check=False, note="random output")


def mean_value(x: torch.Tensor) -> float:
    """Returns a Python float, so there is no tensor output to capture."""
    return float(x.mean())


case("mean_value", "tensor.scalars", mean_value, [_image(3, 3)])

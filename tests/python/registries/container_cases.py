"""Library-like containers around tensors, as inputs and results: the capture wrapper's test registry.

The classes imitate what libraries ship (a tensor wrapper with slots, an object with tensor
fields, a dataclass, a parameter-holding nn.Module, an object that refuses to be copied);
test_capture_wrapper.py asserts what every path makes of them.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import torch
from capmap import case, library

library("container_cases")


class Points:
    """A tensor wrapper: the tensor sits in a slot and is exposed as `.data`."""

    __slots__ = ("_data",)

    def __init__(self, data: torch.Tensor) -> None:
        self._data = data

    @property
    def data(self) -> torch.Tensor:
        return self._data

    def shifted(self, by: torch.Tensor) -> Points:
        return Points(self._data + by)

    def scale_(self, factor: float) -> Points:
        # Changes its own state and returns itself.
        self._data = self._data * factor
        return self


class Segment:
    """A result object with tensor fields and a label."""

    def __init__(self, start: torch.Tensor, end: torch.Tensor) -> None:
        self.start = start
        self.end = end
        self.label = "segment"


@dataclasses.dataclass
class Fit:
    centre: torch.Tensor
    spread: torch.Tensor
    iterations: int


class Plane(torch.nn.Module):
    """A geometric object kept as an nn.Module: its tensors are parameters."""

    def __init__(self, normal: torch.Tensor, offset: torch.Tensor) -> None:
        super().__init__()
        self.normal = torch.nn.Parameter(normal)
        self.offset = torch.nn.Parameter(offset)

    def distance(self, points: torch.Tensor) -> torch.Tensor:
        return (points * self.normal).sum(-1) + self.offset


class Sealed:
    """An object that refuses to be copied, so the wrapper cannot rebuild it around new tensors."""

    def __init__(self, weight: torch.Tensor) -> None:
        self.weight = weight

    def __reduce_ex__(self, protocol: object) -> object:
        raise TypeError("Sealed objects cannot be copied")


def norms(points: Points) -> torch.Tensor:
    return points.data.norm(dim=-1)


def segment_between(a: Points, b: Points) -> Segment:
    return Segment(a.data, b.data * 2.0)


def fit(points: torch.Tensor) -> Fit:
    centre = points.mean(0)
    return Fit(centre, (points - centre).abs().mean(0), iterations=1)


def plane_through_origin(normal: torch.Tensor) -> Plane:
    # A fit-like function: its result is a module whose parameters are what it computed.
    return Plane(normal / normal.norm(), torch.zeros(1))


def weighted(sealed: Sealed, x: torch.Tensor) -> torch.Tensor:
    return (sealed.weight * x).sum(-1)


def through(net: torch.nn.Module, x: torch.Tensor) -> torch.Tensor:
    # Takes a network as an argument, as a batching helper does.
    return net(x).relu()


def box_kernel(size: int) -> torch.Tensor:
    # A kernel getter: integers in, a tensor out; nothing of it depends on a graph input.
    return torch.ones(size, size) / (size * size)


def doubled_array(array: np.ndarray) -> torch.Tensor:
    return torch.from_numpy(array) * 2.0


class Counter(torch.nn.Module):
    """Counts its calls in a buffer and adds the count: a stateful module, as metrics are."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("calls", torch.zeros(1))
        self.seen: list[torch.Tensor] = []

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.calls += 1
        self.seen.append(x.sum())
        return x + self.calls * len(self.seen)


def _x(*shape: int, seed: int = 0) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g)


G = "basic.containers"
case("norms", G, norms, [Points(_x(4, 3))])
case("norms[no-flatten]", G, norms, [Points(_x(4, 3))], flatten=False)
case("segment_between", G, segment_between, [Points(_x(4, 3)), Points(_x(4, 3, seed=1))])
case("fit", G, fit, [_x(6, 3)])
case("Plane.distance", G, Plane(_x(3), _x(1)), [_x(5, 3)], method="distance")
case("plane_distance", G, Plane.distance, [Plane(_x(3), _x(1)), _x(5, 3)])
case("Points.shifted", G, Points(_x(4, 3)), [_x(4, 3, seed=2)], method="shifted")
case("Points", G, Points, [_x(4, 3)])  # a class: its constructor is the operator
case("plane_through_origin", G, plane_through_origin, [_x(3)])
case("Points.scale_", G, Points(_x(4, 3)), [], {"factor": 2.0}, method="scale_")
case("weighted", G, weighted, [Sealed(_x(3)), _x(4, 3)])
case("through", G, through, [torch.nn.Linear(3, 2), _x(4, 3)])


def identity_like(x: torch.Tensor) -> torch.Tensor:
    # Depends on the input's shape only: the exporter folds it into a constant.
    return torch.eye(x.shape[-1]).expand(x.shape[0], -1, -1).clone()


def same_dtype(x: torch.Tensor) -> torch.Tensor:
    # A no-op conversion: the ONNX graph passes its input on, and that is a capture.
    return x.to(torch.float32)


case("box_kernel", G, box_kernel, [3])
case("identity_like", G, identity_like, [_x(2, 3)])
case("same_dtype", G, same_dtype, [_x(2, 3)])
case("box_kernel[declared]", G, box_kernel, [3], constant="a kernel made from its size")
case("doubled_array", G, doubled_array, [np.ones((2, 3), dtype=np.float32)])
case("Counter", G, Counter(), [_x(2, 3)])

"""A registry of small programs that fail to capture in ways a small sample of Kornia cases does
not show. make_cause_examples.py --from-store copies their stored records into
cause_examples.json as `run:` examples.

Run:  capmap run tests/cpp/merge/cause_cases.py --store /tmp/cause_cases.db --no-merge
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator

import torch
from capmap import case

G = "causes"


def clamp_int_float_bounds(x: torch.Tensor) -> torch.Tensor:
    # Integer input, float bound: the ONNX exporter's type promotion finds no clamp overload.
    return torch.clamp(x, min=0.5, max=3)


def numpy_round_trip(x: torch.Tensor) -> torch.Tensor:
    return x + torch.from_numpy(x.numpy())


def generator_with_mutation(x: torch.Tensor) -> torch.Tensor:
    seen: list[int] = []

    def steps() -> Iterator[torch.Tensor]:
        for i in range(3):
            seen.append(i)
            print("step", i)  # a graph break while the generator is suspended
            yield x * i

    return sum(steps()) + len(seen)


def source_file_length(x: torch.Tensor) -> torch.Tensor:
    return x + len(inspect.getsourcefile(torch.nn.functional.relu) or "")


class Tagged(torch.Tensor):
    """A tensor that carries metadata, as a medical-imaging library's MetaTensor does."""

    @staticmethod
    def __new__(cls, x: torch.Tensor, meta: dict[str, int] | None = None) -> Tagged:
        return torch.as_tensor(x).as_subclass(cls)

    def __init__(self, x: torch.Tensor, meta: dict[str, int] | None = None) -> None:
        self.meta = meta or {}

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):  # type: ignore[no-untyped-def]
        return super().__torch_function__(func, types, args, kwargs or {})


def tagged_tensor(x: torch.Tensor) -> torch.Tensor:
    # The library wraps its input in its own tensor subclass: export's fake tensors cannot be one.
    return (Tagged(x, meta={"spacing": 1}) * 2).as_subclass(torch.Tensor)


def tagged_view(x: torch.Tensor) -> torch.Tensor:
    # The subclass taken as a view, without its constructor.
    return (x.as_subclass(Tagged) + 1).as_subclass(torch.Tensor)


def reduced_dims(x: torch.Tensor) -> list[int]:
    # Numbers that depend only on the rank, made through a tensor: each is data-dependent.
    return torch.arange(2, x.dim()).tolist()


def spatial_sum(x: torch.Tensor) -> torch.Tensor:
    return x.sum(dim=reduced_dims(x))


class DataShortcut(torch.nn.Module):
    """A shortcut that pads channels with zeros through `.data`, as a ResNet's shortcut A does."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(2, 2, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = self.conv(x)
        return torch.cat([out.data, torch.zeros_like(out)], 1)


class DataAssignment(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(2, 2, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.conv(x)
        y.data = y.data.clamp(min=0)
        return y * 2


case("clamp_int_float_bounds", G, clamp_int_float_bounds, [torch.arange(6)])
case("tagged_tensor", G, tagged_tensor, [torch.rand(2, 3)])
case("tagged_view", G, tagged_view, [torch.rand(2, 3)])
case("numpy_round_trip", G, numpy_round_trip, [torch.rand(2, 3)])
case("generator_with_mutation", G, generator_with_mutation, [torch.rand(2, 3)])
case("source_file_length", G, source_file_length, [torch.rand(2, 3)])
case("spatial_sum", G, spatial_sum, [torch.rand(2, 2, 3, 3)])
case("DataShortcut", G, DataShortcut(), [torch.rand(2, 2, 3, 3)])
case("DataAssignment", G, DataAssignment(), [torch.rand(2, 2, 3, 3)])

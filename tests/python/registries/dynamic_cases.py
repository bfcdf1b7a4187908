"""Small programs whose dynamic-shape outcomes are known: the test registry of export-dynamic
and onnx-dynamic (and of aoti, on the static program)."""

from __future__ import annotations

import torch
from capmap import case

G = "dynamic"


def elementwise(x: torch.Tensor) -> torch.Tensor:
    return torch.sigmoid(x) * 2.0 - 1.0


def two_only(x: torch.Tensor) -> torch.Tensor:
    if x.shape[0] == 2:  # BRANCH ON BATCH
        return x * 2.0
    return x - 1.0


def rows_from_size(x: torch.Tensor) -> torch.Tensor:
    rows = int(x.shape[0]) * 3  # PYTHON INT OF A SIZE
    return x.reshape(rows, -1)


def rows_of_six(x: torch.Tensor) -> torch.Tensor:
    return x.reshape(6, -1)  # RESHAPE TO A CONSTANT


def positive(x: torch.Tensor) -> torch.Tensor:
    return x[x > 0]


def branch_on_count(x: torch.Tensor) -> torch.Tensor:
    if (x > 0).sum() > 3:  # BRANCH ON DATA
        return x * 2.0
    return x


class Calls(torch.nn.Module):
    """Counts its calls in Python: a trace bakes in the count it saw."""

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.calls += 1
        return x * float(self.calls)


def pool(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.avg_pool2d(x, 2)


case("elementwise", G, elementwise, [torch.randn(2, 3, 8, 8)], tags=("dynamic:batch,spatial",))
case("two_only", G, two_only, [torch.randn(2, 3)])
case("rows_from_size", G, rows_from_size, [torch.randn(2, 3, 4)])
# Batch and the last two dims vary: the trace keeps a condition on their product.
case("rows_of_six", G, rows_of_six, [torch.randn(2, 3, 4)], tags=("dynamic:batch,spatial",))
# The batch alone varies: the reshape inside torch pins it, at the registry's line.
case("rows_of_six[batch]", G, rows_of_six, [torch.randn(2, 3, 4)])
case("positive", G, positive, [torch.randn(2, 3)])
case("branch_on_count", G, branch_on_count, [torch.randn(4, 4)])
case("calls", G, Calls(), [torch.randn(2, 3)])
case("pool_batch_one", G, pool, [torch.randn(1, 3, 8, 8)], tags=("dynamic:batch,spatial",))
case("fixed", G, elementwise, [torch.randn(2, 3)], tags=("dynamic:none",))

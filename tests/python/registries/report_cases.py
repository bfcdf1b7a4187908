"""Five cheap cases whose outcomes cover every kind of JUnit cell: passing, failing (eager and
export), not applicable and skipped; the registry of the CI report tests (test_ci_reports.py)."""

from __future__ import annotations

import torch
from capmap import case, library

library("report_cases")


def doubled(x: torch.Tensor) -> torch.Tensor:
    return x * 2.0


def branch_on_values(x: torch.Tensor) -> torch.Tensor:
    # A Python branch on tensor values: torch.export cannot trace it.
    if float(x.sum()) > 0:
        return x + 1.0
    return x - 1.0


def wrong_channels(x: torch.Tensor) -> torch.Tensor:
    raise ValueError(f"expected 3 channels, got {x.shape[0]} <\x01 & 'quoted'>")


def shape_only(x: torch.Tensor) -> tuple[int, ...]:
    return tuple(x.shape)


case("doubled", "math.scale", doubled, [torch.ones(2, 3)])
case("branch_on_values", "math.control", branch_on_values, [torch.ones(2, 3)])
case("wrong_channels", "math.errors", wrong_channels, [torch.ones(4, 3)])
case("shape_only", "math.shape", shape_only, [torch.ones(2, 3)])
case("skipped_op", "math.scale", doubled, [torch.ones(2, 3)], skip="surveyed elsewhere")

"""Eight cheap cases, three of them tagged quick: the registry of the selection tests
(test_selection_cli.py), where a run of part of it must say so."""

from __future__ import annotations

import torch
from capmap import case, library

library("selection_cases")


def shifted_sin(x: torch.Tensor) -> torch.Tensor:
    return torch.sin(x) + 1.0


for i in range(1, 9):
    case(
        f"x[{i}]",
        "math.x" if i <= 6 else "math.y",
        shifted_sin,
        [torch.full((2, 3), float(i))],
        tags=("quick",) if i in (1, 2, 7) else (),
    )

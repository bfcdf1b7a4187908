"""Failures of the opt-in paths (export-dynamic, onnx-dynamic, aoti), for their repro scripts."""

from __future__ import annotations

import torch
from capmap import case, library

library("repro_path_cases")


def branch_on_value(x: torch.Tensor) -> torch.Tensor:
    # Python control flow on a tensor value: no export traces it, so every path here fails.
    if x.sum() > 0:
        return x + 1.0
    return x - 1.0


def rows_of_two(x: torch.Tensor) -> torch.Tensor:
    # A fixed row count: the dynamic trace pins the batch to 2.
    return x.reshape(2, -1) * 2.0


case("branch_on_value", "repro", branch_on_value, [torch.linspace(-1.0, 2.0, 12).reshape(2, 6)])
case("rows_of_two", "repro", rows_of_two, [torch.linspace(-1.0, 1.0, 12).reshape(2, 6)])
case("plain", "repro", torch.sin, [torch.linspace(-1.0, 1.0, 12).reshape(2, 6)])

"""One failure of each kind, for the repro scripts: each must reproduce outside capmap.

Targets that are public torch callables (torch.cummax, torch.nn.AdaptiveMaxPool2d ...) get scripts
that import only torch; the functions defined here are loaded from this file by their scripts.
`fails_only_in_the_harness` stands for a defect of the harness: its failure never reproduces.
`conv[float64]` is a deferred module (capmap.deferred): its script calls the constructor.
"""

from __future__ import annotations

import ctypes
import sys

import torch
from capmap import case, deferred, library

library("repro_cases")


@torch.library.custom_op("repro_cases::shift", mutates_args=())
def shift(x: torch.Tensor) -> torch.Tensor:
    return x + 1


@shift.register_fake
def _shift_shape(x: torch.Tensor) -> torch.Tensor:
    # Eager runs the real kernel; every tracer meets this instead.
    raise RuntimeError("repro_cases::shift has no shape function")


def branch_on_value(x: torch.Tensor) -> torch.Tensor:
    # Python control flow on a tensor value: torch.export cannot trace it.
    if x.sum() > 0:
        return x + 1.0
    return x - 1.0


def breaks_then_fails(x: torch.Tensor) -> torch.Tensor:
    # A graph break, then an operator dynamo cannot trace: torch.compile fails after a break.
    y = x * 2.0
    torch._dynamo.graph_break()
    return shift(y)


def diverges_when_captured(x: torch.Tensor) -> torch.Tensor:
    # Differs from eager by exactly 0.5 once traced by any capture.
    return x + (0.5 if torch.compiler.is_compiling() else 0.0)


def crashes_when_exporting(x: torch.Tensor) -> torch.Tensor:
    if torch.compiler.is_exporting():
        ctypes.string_at(0)
    return x * 3.0


def fails_only_in_the_harness(x: torch.Tensor) -> torch.Tensor:
    # Stands for a harness defect: it fails only where capmap's probes are loaded.
    if torch.compiler.is_exporting() and "capmap.probes" in sys.modules:
        raise RuntimeError("state left behind by the harness")
    return x * 3.0


def _x(*shape: int, seed: int = 0) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g)


_ints = torch.arange(9, dtype=torch.int8).reshape(3, 3)

case("branch_on_value", "kinds.export", branch_on_value, [_x(2, 3).abs()])
case("cummax", "kinds.onnx_export", torch.cummax, [_x(3, 4)], {"dim": 0})
case("matmul[int8]", "kinds.checker", torch.matmul, [_ints, _ints])
case("erf[float64]", "kinds.ort", torch.erf, [_x(3, 4).double()])
case("adaptive_max_pool", "kinds.module", torch.nn.AdaptiveMaxPool2d(3), [_x(1, 2, 7, 7)])
case("diverges_when_captured", "kinds.mismatch", diverges_when_captured, [_x(2, 3)])
case("breaks_then_fails", "kinds.compile", breaks_then_fails, [_x(2, 3)])
case("crashes_when_exporting", "kinds.crash", crashes_when_exporting, [_x(2, 3)])
case("fails_only_in_the_harness", "kinds.harness", fails_only_in_the_harness, [_x(2, 3)])
case("plain", "kinds.ok", torch.sin, [_x(2, 3)])
# Built in the task's child, with random weights from a fixed seed; ONNX Runtime has no double Conv.
conv64 = deferred(torch.nn.Conv2d, 2, 3, 3, dtype=torch.float64)
case("conv[float64]", "kinds.deferred", conv64, [_x(1, 2, 6, 6).double()])

"""Pays each capture path's one-time start-up in the fork server, so no child pays it again.

The first `torch.compile` in a process costs seconds that later compiles do not: dynamo's and
inductor's lazy imports and registries, the CPU-ISA probe (test programs built with the C++
compiler), the code cache and toolchain set-up. `torch.export` and the ONNX exporter have
first-use costs of their own (decomposition tables, the translation registry). A child forked
after this ran starts where a long-lived process is after its first case.

Fork safety: everything runs with one thread and no compile sub-process pool, and afterwards
no thread but the main one exists (tests check it). ONNX Runtime is never touched here: loading
it starts a thread.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable

import torch

# (path, what it warms) → seconds it took, for the worker's log and the bench.
Timings = dict[str, float]


class _Tiny(torch.nn.Module):
    """A convolution, an elementwise tail and a reduction: the kernels most cases lower to."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(2, 2, 3, padding=1)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        y = torch.sigmoid(self.conv(x)) * 2.0 - x
        return y, y.mean(dim=(-2, -1))


def _tiny_input() -> torch.Tensor:
    return torch.linspace(-1.0, 1.0, 2 * 2 * 6 * 6).reshape(2, 2, 6, 6)


def _warm_compile() -> None:
    import torch._dynamo
    from torch._dynamo import utils as dynamo_utils

    def elementwise(x: torch.Tensor) -> torch.Tensor:
        return torch.where(x > 0, x * 2.0 + 1.0, torch.exp(x))

    def reduction(x: torch.Tensor) -> torch.Tensor:
        return (x - x.amax(dim=-1, keepdim=True)).softmax(dim=-1).sum(dim=0)

    def matmul(x: torch.Tensor) -> torch.Tensor:
        flat = x.reshape(x.shape[0], -1)
        return flat @ flat.t() + 1.0

    module = _Tiny().eval()
    x = _tiny_input()
    with torch.no_grad():
        for fn in (elementwise, reduction, matmul, module):
            torch._dynamo.reset()
            torch.compile(fn, backend="inductor", fullgraph=False)(x)
    # Children start from a clean slate, exactly as if nothing had been compiled.
    torch._dynamo.reset()
    dynamo_utils.counters.clear()
    dynamo_utils.compilation_time_metrics.clear()


def _warm_export() -> None:
    program = torch.export.export(_Tiny().eval(), (_tiny_input(),), strict=False)
    with torch.no_grad():
        program.module()(_tiny_input())


def _warm_onnx() -> None:
    import onnx

    from capmap.probes.onnx import reuse_torchlib_registry

    reuse_torchlib_registry()
    program = torch.export.export(_Tiny().eval(), (_tiny_input(),), strict=False)
    onnx_program = torch.onnx.export(program, (_tiny_input(),), dynamo=True, verbose=False)
    onnx.checker.check_model(onnx_program.model_proto, full_check=True)


_WARMERS: dict[str, Callable[[], None]] = {
    "export": _warm_export,
    "onnx": _warm_onnx,
    "compile": _warm_compile,
}


def warm(paths: list[str]) -> Timings:
    """Runs the start-up of every path in `paths` once, quietly; returns seconds per path.

    A path whose warm-up fails is left cold: its children pay the start-up themselves and meet
    the same error, where it is recorded against a case.
    """
    timings: Timings = {}
    sys.stdout.flush()
    sys.stderr.flush()
    devnull = os.open(os.devnull, os.O_WRONLY)
    saved = (os.dup(1), os.dup(2))
    try:
        # Exporter progress and compiler warnings would otherwise reach the supervisor's terminal.
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        for path in paths:
            warmer = _WARMERS.get(path)
            if warmer is None:
                continue
            start = time.perf_counter()
            try:
                warmer()
            except Exception:  # noqa: BLE001 - see the docstring
                continue
            timings[path] = round(time.perf_counter() - start, 3)
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in (*saved, devnull):
            os.close(fd)
    return timings


def thread_count() -> int:
    """Threads of this process right now (the fork-safety check)."""
    return len(os.listdir("/proc/self/task"))

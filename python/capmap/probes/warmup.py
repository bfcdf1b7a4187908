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

import torch

from capmap.probes import catalog

# (path, what it warms) → seconds it took, for the worker's log and the bench.
Timings = dict[str, float]


class TinyModule(torch.nn.Module):
    """A convolution, an elementwise tail and a reduction: the kernels most cases lower to."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(2, 2, 3, padding=1)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        y = torch.sigmoid(self.conv(x)) * 2.0 - x
        return y, y.mean(dim=(-2, -1))


def tiny_input() -> torch.Tensor:
    return torch.linspace(-1.0, 1.0, 2 * 2 * 6 * 6).reshape(2, 2, 6, 6)


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
            # Each path module's own warm(), when it has one.
            warmer = getattr(catalog.module(path), "warm", None)
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

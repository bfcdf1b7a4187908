"""Deferred targets: built by the child of the task that runs them, never by the worker.

Each build appends the building process's pid to the file named by CAPMAP_TEST_BUILD_LOG, so a
test can tell which processes built what.
"""

from __future__ import annotations

import os

import torch
from capmap import case, deferred, library

library("deferred_cases")


def _note_build(what: str) -> None:
    log = os.environ.get("CAPMAP_TEST_BUILD_LOG")
    if log:
        with open(log, "a") as out:
            out.write(f"{what} {os.getpid()}\n")


class Wide(torch.nn.Module):
    """A linear layer with random weights, logged when built."""

    def __init__(self, features: int) -> None:
        super().__init__()
        _note_build("Wide")
        self.linear = torch.nn.Linear(features, features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.linear(x))

    def half(self, x: torch.Tensor) -> torch.Tensor:
        return self.linear(x) * 0.5


class Unbuildable(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        raise ValueError("needs weights that are not here")


wide = deferred(Wide, 16)
x = torch.linspace(-1.0, 1.0, 32).reshape(2, 16)
case("Wide", "toy.deferred", wide, [x])
case("Wide.half", "toy.deferred", wide, [x], method="half")
case("Unbuildable", "toy.deferred", deferred(Unbuildable), [x])

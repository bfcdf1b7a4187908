"""Small functions whose capture outcomes are known: the probes' test registry.

Each function documents what the four paths should make of it; test_probes.py asserts it.
Inputs stay tiny so that the whole registry compiles in seconds.
"""

from __future__ import annotations

import torch
from capmap import case, library

library("capture_cases")


def plain_sin(x: torch.Tensor) -> torch.Tensor:
    # Every path captures this in one graph.
    return torch.sin(x) * 2.0 + 1.0


def branch_on_value(x: torch.Tensor) -> torch.Tensor:
    # Python control flow on a tensor value: export cannot guard on it, dynamo breaks the graph.
    if x.sum() > 0:
        return x + 1.0
    return x - 1.0


def halve_while_large(x: torch.Tensor) -> torch.Tensor:
    # The same value-dependent branch taken twice: two breaks, one reason.
    for _ in range(2):
        if x.max() > 1.0:  # loop branch
            x = x / 2.0
    return x


def scale_by_max(x: torch.Tensor) -> torch.Tensor:
    # .item() reads a value back to Python.
    return x * x.max().item()


def positive_indices(x: torch.Tensor) -> torch.Tensor:
    # The output shape depends on the values.
    return torch.nonzero(x > 0)


def chatty(x: torch.Tensor) -> torch.Tensor:
    y = x * 3.0
    print("chatty: forward ran")
    return y - 1.0


def noisy(x: torch.Tensor) -> torch.Tensor:
    # Random: only the structure of the result can be checked.
    return x + torch.rand_like(x)


def broken(x: torch.Tensor) -> torch.Tensor:
    # Fails in eager already: every path is eager-fail.
    return x @ torch.ones(x.shape[-1] + 1, 2)


def several_outputs(x: torch.Tensor, y: torch.Tensor) -> dict[str, object]:
    return {"sum": x + y, "pair": (x * y, (x - y, y.abs() > 0.5))}


def diverges_when_captured(x: torch.Tensor) -> torch.Tensor:
    # Deliberately differs from eager by exactly 0.5 once traced by any capture.
    return x + (0.5 if torch.compiler.is_compiling() else 0.0)


_calls = [0]


def recompiles(x: torch.Tensor) -> torch.Tensor:
    # Reads Python state that changes on every call: dynamo guards on it and must recompile.
    _calls[0] += 1
    return x + _calls[0]


def counts_only(x: torch.Tensor) -> int:
    return int(x.numel())


class Affine(torch.nn.Module):
    """A module with parameters, called through a bound keyword argument."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.linear = torch.nn.Linear(4, 3)

    def forward(self, x: torch.Tensor, scale: float = 1.0) -> torch.Tensor:
        return self.linear(x) * scale


def _x(*shape: int, seed: int = 0) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g)


case("plain_sin", "basic.elementwise", plain_sin, [_x(2, 3)])
case("branch_on_value", "basic.control", branch_on_value, [_x(2, 3).abs()])
case("halve_while_large", "basic.control", halve_while_large, [_x(2, 3).abs() * 4.0])
case("scale_by_max", "basic.readback", scale_by_max, [_x(2, 3)])
case("positive_indices", "basic.dynamic", positive_indices, [_x(3, 4)])
case("chatty", "basic.python", chatty, [_x(2, 3)])
case("noisy", "basic.random", noisy, [_x(2, 3)], check=False)
# Compared: every path starts from the eager reference's random state, so a path that draws
# from torch's generator (an exported program) draws the same numbers.
case("checked_noisy", "basic.random", noisy, [_x(2, 3)])
case("broken", "basic.errors", broken, [_x(2, 3)])
case("several_outputs", "basic.containers", several_outputs, [_x(2, 3), _x(2, 3, seed=1)])
case("diverges_when_captured", "basic.numeric", diverges_when_captured, [_x(2, 3)])
case("recompiles", "basic.python", recompiles, [_x(2, 3)], check=False)
case("counts_only", "basic.errors", counts_only, [_x(2, 3)])
case("affine[scaled]", "basic.module", Affine(), [_x(2, 4)], {"scale": 2.0})
case("skipped_op", "basic.errors", plain_sin, [_x(2, 3)], skip="not an operator")


# Scalar results: ONNX Runtime returns them as 0-d arrays, which must stay 0-d.
def mean_of(x: torch.Tensor) -> torch.Tensor:
    return (x * 2.0).mean()


def sum_of(x: torch.Tensor) -> torch.Tensor:
    return (x + 1.0).sum()


def scalar_and_matrix(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    return x.abs().sum(), x * 3.0


case("mean_of", "basic.scalar", mean_of, [_x(2, 3)])
case("sum_of", "basic.scalar", sum_of, [_x(2, 3)])
case("scalar_and_matrix", "basic.scalar", scalar_and_matrix, [_x(2, 3)])
case("scalar_and_matrix[no-flatten]", "basic.scalar", scalar_and_matrix, [_x(2, 3)], flatten=False)


# A random-weight network's output can vanish: values this small check nothing at atol 2e-4.
def vanishing(x: torch.Tensor) -> torch.Tensor:
    return torch.sin(x) * 1e-12


case("vanishing", "basic.numeric", vanishing, [_x(2, 3)])

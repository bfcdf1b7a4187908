"""Flattens what an operator returns into tensors and compares a captured run with eager."""

from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

# Containers are walked at most this deep, so a self-referencing object cannot loop forever.
_MAX_DEPTH = 16


def flatten(value: Any) -> list[torch.Tensor]:
    """Every tensor in `value`, in the order torch's pytree would list them."""
    found: list[torch.Tensor] = []
    _walk(value, found, 0)
    return found


def _walk(value: Any, found: list[torch.Tensor], depth: int) -> None:
    if depth > _MAX_DEPTH or value is None:
        return
    if isinstance(value, torch.Tensor):
        found.append(value)
    elif isinstance(value, np.ndarray):
        found.append(numpy_to_tensor(value))
    elif isinstance(value, dict):
        for item in value.values():
            _walk(item, found, depth + 1)
    elif isinstance(value, (tuple, list)):
        for item in value:
            _walk(item, found, depth + 1)
    elif isinstance(value, (str, bytes, int, float, complex, bool)):
        return
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            _walk(getattr(value, f.name), found, depth + 1)
    elif isinstance(getattr(value, "data", None), torch.Tensor):
        # Tensor wrappers (boxes, keypoints, images) expose their tensor as `.data`.
        found.append(value.data)
    elif hasattr(value, "__dict__") and not callable(value):
        for item in vars(value).values():
            _walk(item, found, depth + 1)


def numpy_to_tensor(value: np.ndarray) -> torch.Tensor:
    """A tensor of the array's shape. A 0-d array (ONNX Runtime's scalar output) stays 0-d, where
    np.ascontiguousarray would make it shape [1]."""
    return torch.from_numpy(np.array(value, order="C", copy=True))


def summary(t: torch.Tensor) -> str:
    """`Tensor[1,3,32,40] float32`: what a reader needs to recognise an output."""
    dims = ",".join(str(d) for d in t.shape)
    return f"Tensor[{dims}] {str(t.dtype).removeprefix('torch.')}"


def clone_inputs(value: Any) -> Any:
    """Fresh copies of every tensor inside `value`, so no probe sees another's mutations."""
    if isinstance(value, torch.Tensor):
        return value.detach().clone()
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*(clone_inputs(v) for v in value))
    if isinstance(value, (tuple, list)):
        return type(value)(clone_inputs(v) for v in value)
    if isinstance(value, dict):
        return {k: clone_inputs(v) for k, v in value.items()}
    return value


@dataclass
class Comparison:
    """The outcome of comparing a captured run with eager; `check_failed` is None when they agree.
    `vacuous` says why values that agree verified nothing (every eager value within the
    tolerance of zero: outputs of zeros would agree too)."""

    check_failed: str | None = None
    detail: str = ""
    max_abs_diff: float | None = None
    mismatched: int = 0
    vacuous: str | None = None

    @property
    def agrees(self) -> bool:
        return self.check_failed is None

    def fields(self) -> dict[str, Any]:
        if self.agrees:
            return {} if self.max_abs_diff is None else {"max_abs_diff": self.max_abs_diff}
        out: dict[str, Any] = {"check_failed": self.check_failed, "mismatched": self.mismatched}
        if self.max_abs_diff is not None:
            out["max_abs_diff"] = self.max_abs_diff
        return out


def compare(
    expected: list[torch.Tensor], actual: list[torch.Tensor], *, check: bool, atol: float, rtol: float
) -> Comparison:
    """Compares flattened outputs. Without `check` only structure and finiteness are verified."""
    if len(expected) != len(actual):
        return Comparison("count", f"{len(actual)} outputs, eager returned {len(expected)}")
    worst = 0.0
    for i, (e, a) in enumerate(zip(expected, actual, strict=True)):
        if tuple(e.shape) != tuple(a.shape):
            return Comparison("shape", f"output {i}: shape {list(a.shape)}, eager {list(e.shape)}")
        if not check:
            if a.dtype != e.dtype:
                return Comparison("dtype", f"output {i}: dtype {a.dtype}, eager {e.dtype}")
            if (a.is_floating_point() or a.is_complex()) and not bool(torch.isfinite(a).all()):
                bad = int((~torch.isfinite(a)).sum())
                return Comparison("finite", f"output {i}: {bad} non-finite values", mismatched=bad)
            continue
        result = _compare_values(i, e.detach(), a.detach(), atol, rtol)
        if not result.agrees:
            return result
        worst = max(worst, result.max_abs_diff or 0.0)
    vacuous = vacuous_reason(expected, atol) if check else None
    return Comparison(max_abs_diff=worst if check and expected else None, vacuous=vacuous)


def vacuous_reason(expected: list[torch.Tensor], atol: float) -> str | None:
    """Why comparing with `expected` checks nothing: it holds floating values only, and every
    finite one is within `atol` of zero (a random-weight network's output of 2e-13 against an
    atol of 2e-4). None when some value, or an integer or boolean output, can tell a wrong
    capture from a right one."""
    floats = [e for e in expected if e.numel() > 0]
    if not floats or not all(e.is_floating_point() or e.is_complex() for e in floats):
        return None
    largest = 0.0
    for e in floats:
        magnitude = e.detach().abs().to(torch.float64)
        finite = magnitude[torch.isfinite(magnitude)]
        if finite.numel() < magnitude.numel():
            return None  # an infinity or a NaN must be matched: that is a check
        if finite.numel():
            largest = max(largest, float(finite.max()))
    if largest > atol:
        return None
    return (
        f"every eager value is within the tolerance of zero (max |eager| {largest:.3g}, atol {atol:g}): "
        "outputs of zeros would agree too, so the comparison verified nothing"
    )


# The message `_compare_values` writes for values beyond tolerance: which output failed.
_VALUES_BEYOND = re.compile(r"^output (\d+): \d+ of \d+ values beyond tolerance")


def failed_output(message: str) -> int | None:
    """The index of the output whose values a mismatch's message (`compare`'s detail) says are
    beyond tolerance; None for any other message (a count, a shape, a dynamic path's `at ...`)."""
    found = _VALUES_BEYOND.match(message)
    return int(found.group(1)) if found else None


def difference_of_output(expected: torch.Tensor, other: torch.Tensor) -> float | None:
    """The largest |difference| between two computations of one output (eager float32 and
    float64), measured as a capture's is; None when their shapes or NaN positions differ."""
    if tuple(expected.shape) != tuple(other.shape):
        return None
    result = _compare_values(0, expected.detach(), other.detach(), math.inf, 0.0)
    return result.max_abs_diff if result.agrees else None


def _compare_values(i: int, e: torch.Tensor, a: torch.Tensor, atol: float, rtol: float) -> Comparison:
    if e.dtype == torch.bool or a.dtype == torch.bool:
        differ = int((e.to(torch.bool) != a.to(torch.bool)).sum())
        if differ:
            return Comparison("values", f"output {i}: {differ} booleans differ", 1.0, differ)
        return Comparison(max_abs_diff=0.0)
    if e.is_complex() or a.is_complex():
        e, a = torch.view_as_real(e.to(torch.complex128)), torch.view_as_real(a.to(torch.complex128))
    e, a = e.to(torch.float64), a.to(torch.float64)
    e_nan, a_nan = torch.isnan(e), torch.isnan(a)
    if not torch.equal(e_nan, a_nan):
        differ = int((e_nan != a_nan).sum())
        return Comparison(
            "nan",
            f"output {i}: NaN at {differ} different positions "
            f"(eager {int(e_nan.sum())} NaN, capture {int(a_nan.sum())} of {e.numel()})",
            None,
            differ,
        )
    keep = ~e_nan
    e, a = e[keep], a[keep]
    if e.numel() == 0:
        return Comparison(max_abs_diff=0.0)
    # Infinities agree only with the same infinity; inf - inf would be NaN.
    same_inf = torch.isinf(e) & (e == a)
    diff = torch.where(same_inf, torch.zeros_like(e), (e - a).abs())
    diff = torch.nan_to_num(diff, nan=float("inf"))
    bound = torch.where(torch.isinf(e), torch.zeros_like(e), atol + rtol * e.abs())
    over = int((diff > bound).sum())
    worst = float(diff.max())
    if over:
        return Comparison(
            "values",
            f"output {i}: {over} of {e.numel()} values beyond tolerance "
            f"(max |diff| {worst:.3g}; allowed {atol:g} + {rtol:g}·|eager|)",
            worst,
            over,
        )
    return Comparison(max_abs_diff=worst)

"""A mismatch no larger than eager's own float32-against-float64 difference is labelled
ill-conditioned on these inputs, a capture that computes something else stays a mismatch with
its cause, and a vacuous comparison keeps its label: through the real binary (run, merge,
render) on a small registry written here."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
import torch
from capmap.compare import difference_of_output, failed_output
from capmap_testing import run_capmap

PATHS = "eager,compile,export"
REGISTRY = '''
import torch
from capmap import case


def cancels(a, b):
    # (a + b) - a is b, rounded once in float32: about 0.004 off where a is 1e5. A capture that
    # orders the same sum otherwise, as a compiler may, gets b exactly.
    if torch.compiler.is_compiling():
        return (a - a) + b
    return (a + b) - a


class CancellingNorm(torch.nn.Module):
    """The same cancellation inside a network: its weights must be cast to float64 too."""

    def __init__(self):
        super().__init__()
        self.offset = torch.nn.Parameter(torch.full((8,), 1e5))

    def forward(self, x):
        if torch.compiler.is_compiling():
            return (self.offset - self.offset) + x
        return (x + self.offset) - self.offset


def shifted(x):
    # A capture that computes something else: eager is steady, the capture is 1 off.
    return x + (1.0 if torch.compiler.is_compiling() else 0.0)


g = torch.Generator().manual_seed(0)
case("cancels", "toy.numeric", cancels, [torch.full((4, 8), 1e5), torch.randn(4, 8, generator=g)])
case("cancelling_norm", "toy.numeric", CancellingNorm(), [torch.randn(4, 8, generator=g)])
case("shifted", "toy.numeric", shifted, [torch.randn(4, 8, generator=g)])
case("vanishing", "toy.numeric", torch.mul, [torch.full((3,), 1e-7), torch.full((3,), 1e-7)])
'''
WRONG_LOWERING = "a large one is a wrong lowering to report upstream"
TODAY = "Captured graph runs, but its output differs from eager beyond tolerance"


@pytest.fixture(scope="module")
def survey(capmap_bin: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    folder = tmp_path_factory.mktemp("conditioning")
    registry = folder / "toy_numeric.py"
    registry.write_text(REGISTRY)
    store = folder / "results.db"
    done = run_capmap(
        capmap_bin, "run", registry, "--paths", PATHS, "--jobs", "1", "--store", store, "--no-merge"
    )
    assert done.returncode == 0, done.stderr
    snapshot = folder / "snapshot.json"
    merged = run_capmap(capmap_bin, "merge", "--store", store, "--out", snapshot)
    assert merged.returncode == 0, merged.stderr
    page = folder / "page.html"
    rendered = run_capmap(capmap_bin, "render", snapshot, "--html", page)
    assert rendered.returncode == 0, rendered.stderr
    data = json.loads(snapshot.read_text())
    return {
        "cells": {(c["name"], p): r for c in data["cases"] for p, r in c["paths"].items()},
        "page": page.read_text(),
    }


@pytest.mark.parametrize("name", ["cancels", "cancelling_norm"])
def test_a_capture_as_far_off_as_eager_s_own_rounding_is_ill_conditioned(
    survey: dict[str, Any], name: str
) -> None:
    for path in ("compile", "export"):
        cell = survey["cells"][(name, path)]
        assert cell["status"] == "mismatch", (path, cell)
        assert cell["check_failed"] == "values"
        # Both figures: the capture's difference from eager, eager's own from float64.
        assert cell["max_abs_diff"] > cell["atol"]
        assert cell["eager_float64_diff"] > cell["atol"]
        assert cell["max_abs_diff"] <= 2 * cell["eager_float64_diff"]
        assert cell["ill_conditioned"] is True
        assert "ill-conditioned on these inputs" in cell["message"]
        assert cell["cause"].startswith("Ill-conditioned on these inputs")
        assert cell["category"] == "numeric-mismatch"
        assert WRONG_LOWERING not in cell["remedy"] and "cannot tell" in cell["remedy"]
        assert cell["eager_float64_seconds"] >= 0
    # The page shows eager's own figure beside the capture's.
    assert "eager float32 itself differs from float64 by" in survey["page"]


def test_a_capture_that_computes_something_else_stays_a_mismatch(survey: dict[str, Any]) -> None:
    for path in ("compile", "export"):
        cell = survey["cells"][("shifted", path)]
        assert cell["status"] == "mismatch" and cell["page_status"] == "mismatch"
        assert cell["max_abs_diff"] == pytest.approx(1.0)
        # Eager is steady: float32 and float64 agree, so the difference is the capture's.
        assert cell["eager_float64_diff"] == 0.0
        assert "ill_conditioned" not in cell
        assert "ill-conditioned" not in cell["message"]
        assert cell["cause"] == TODAY
        assert WRONG_LOWERING in cell["remedy"]


def test_each_comparison_is_labelled_as_what_it_is(survey: dict[str, Any]) -> None:
    """Side by side: vacuous is ok-unverified, ill-conditioned and real mismatches are told apart."""
    cells = survey["cells"]
    labels = {
        name: (cells[(name, "compile")]["status"], cells[(name, "compile")].get("cause", ""))
        for name in ("vanishing", "cancels", "shifted")
    }
    assert labels["vanishing"][0] == "ok-unverified"
    assert "within the tolerance of zero" in cells[("vanishing", "compile")]["message"]
    assert "eager_float64_diff" not in cells[("vanishing", "compile")]  # agreed: no float64 run
    assert labels["cancels"][0] == labels["shifted"][0] == "mismatch"
    assert labels["cancels"][1] != labels["shifted"][1] == TODAY


def test_the_failed_output_is_read_from_the_comparison_s_own_message() -> None:
    assert failed_output("output 3: 5 of 96 values beyond tolerance (max |diff| 0.031; ...)") == 3
    assert failed_output("at batch ×2: output 0: 5 of 96 values beyond tolerance (...)") is None
    assert failed_output("output 0: shape [2, 3], eager [2, 4]") is None


def test_eager_s_own_difference_is_measured_as_a_capture_s() -> None:
    single = torch.tensor([1.0, float("inf"), 3.0])
    double = torch.tensor([1.5, float("inf"), 3.0], dtype=torch.float64)
    assert difference_of_output(single, double) == pytest.approx(0.5)
    assert difference_of_output(single, double[:2]) is None
    assert difference_of_output(torch.tensor([math.nan]), torch.tensor([1.0])) is None

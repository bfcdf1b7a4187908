"""A cell that went through the ONNX exporter's strict fallback is measured again in a fresh
process, the process a user's export script is.

The strict (dynamo) export of a call that samples from `torch.distributions` fails in a fresh
process (dynamo skips `torch.distributions.constraints.is_dependent`) and succeeds once anything
has been compiled in it, as in a kept child that compiled another case before
(`kornia.geometry.epipolar.random_intrinsics` was published `constant` that way). The registry
below compiles at import in the worker, not in the fresh process the check starts, so the
worker's cell is reached through that fallback; the cell recorded is the fresh process's
`export-fail`, which a plain `torch.onnx.export` script gives too.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from capmap_testing import python_env, records, run_capmap

MODULE = """\
import torch


class Intrinsics(torch.nn.Module):
    def forward(self, x):
        fx, fy, cx, cy = torch.distributions.Uniform(0.0, 1.0).sample((4,))
        return x * torch.tensor([[fx, 0.0, cx], [0.0, fy, cy], [0.0, 0.0, 1.0]])
"""

REGISTRY = """\
import os

import torch
from capmap import case, library
from intrinsics import Intrinsics

library("intrinsics")

# What a kept child has done before this case: compiled another one. The fresh process the
# check starts has not.
if os.environ.get("CAPMAP_FRESH_CHECK") != "1":
    torch.compile(lambda t: t + 1)(torch.ones(1))

case("Intrinsics", "intrinsics", Intrinsics(), (torch.ones(3, 3),), check=False)
"""

USER_SCRIPT = """\
import torch
from intrinsics import Intrinsics

try:
    torch.onnx.export(Intrinsics(), (torch.ones(3, 3),), dynamo=True)
except Exception as exc:
    print("fails:", type(exc).__name__)
else:
    print("exports")
"""


@pytest.fixture
def registry(tmp_path: Path) -> Path:
    (tmp_path / "intrinsics.py").write_text(MODULE)
    (tmp_path / "reg.py").write_text(REGISTRY)
    return tmp_path / "reg.py"


def test_a_strict_fallback_cell_is_what_a_fresh_process_gives(
    capmap_bin: Path, registry: Path, tmp_path: Path
) -> None:
    store = tmp_path / "results.db"
    done = run_capmap(capmap_bin, "run", registry, "--paths", "eager,export,onnx", "--jobs", "1",
                      "--store", store, "--no-merge", timeout=600, cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    found = records(store)
    assert found[("Intrinsics", "export")]["status"] == "fail"  # the non-strict trace fails
    cell = found[("Intrinsics", "onnx")]
    assert cell["status"] == "export-fail", cell
    assert cell["fresh_check"] == (
        "a fresh process gives this; where torch.compile has already run, ok-unverified"
    )
    assert "its data is not allocated yet" in cell["message"]  # the exporter reports its first try
    # What a user's own export script sees, in a process of its own.
    env = python_env(PYTHONPATH=str(tmp_path))
    user = subprocess.run([sys.executable, "-c", USER_SCRIPT], capture_output=True, text=True,
                          env=env, timeout=300, check=False, cwd=tmp_path)  # fmt: skip
    assert user.stdout.strip().splitlines()[-1].startswith("fails:"), user.stdout + user.stderr[-2000:]


NOISY = """\
import torch

# State a process's history can change: what an earlier case left behind.
EARLIER = {"ran": False}


def jitter(x):
    noise = torch.rand(x.shape)
    if torch.compiler.is_compiling() and EARLIER["ran"]:
        return x + noise / 0.0
    return x + noise
"""

NOISY_REGISTRY = """\
import os

import torch
from capmap import case, library
import noisy

library("noisy")

# The worker is a process where something ran before; the fresh process the check starts is not.
if os.environ.get("CAPMAP_FRESH_CHECK") != "1":
    noisy.EARLIER["ran"] = True

case("jitter", "noisy", noisy.jitter, (torch.ones(2, 3),), check=False)
"""


def test_a_random_case_s_non_finite_capture_is_measured_again_alone(capmap_bin: Path, tmp_path: Path) -> None:
    (tmp_path / "noisy.py").write_text(NOISY)
    (tmp_path / "reg.py").write_text(NOISY_REGISTRY)
    store = tmp_path / "results.db"
    done = run_capmap(capmap_bin, "run", tmp_path / "reg.py", "--paths", "eager,compile", "--jobs", "1",
                      "--store", store, "--no-merge", timeout=600, cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    cell = records(store)[("jitter", "compile")]
    # The worker's compile divided by zero; alone, the case compiles to finite values.
    assert cell["status"] == "ok-unverified", cell
    assert (
        cell["fresh_check"] == "a fresh process gives this; after other cases in the same process, mismatch"
    )

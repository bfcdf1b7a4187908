"""The folder the workers share code hashes through belongs to the run: a worker killed in the
middle of a run leaves no folder behind in the temporary folder."""

from __future__ import annotations

import subprocess
from pathlib import Path

from capmap_testing import python_env, records

REGISTRY = """\
import os
import signal

import torch
from capmap import case, library

library("torch")


def kills_its_worker(x):
    os.kill(os.getppid(), signal.SIGKILL)  # the child's parent is the worker
    return x


X = torch.ones(3)
case("kills_its_worker", "faults", kills_its_worker, [X])
case("relu", "ordinary", torch.relu, [X])
"""


def test_a_killed_worker_leaves_no_code_hash_folder(capmap_bin: Path, tmp_path: Path) -> None:
    registry = tmp_path / "killer.py"
    registry.write_text(REGISTRY)
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    argv = [str(capmap_bin), "run", str(registry), "--paths", "eager", "--jobs", "1",
            "--store", str(tmp_path / "results.db"), "--no-merge"]  # fmt: skip
    done = subprocess.run(
        argv, capture_output=True, text=True, timeout=300, env=python_env(TMPDIR=str(temporary)), check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    got = records(tmp_path / "results.db")
    assert got[("relu", "eager")]["status"] == "ok"
    assert got[("kills_its_worker", "eager")]["status"] != "ok"
    assert [p.name for p in temporary.iterdir() if p.name.startswith("capmap-code-")] == []

"""Deferred targets: the registry holds a constructor call; the task's own child builds it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import torch
from capmap import deferred, registry
from capmap.cases import Case
from capmap.probes.task import run_task
from capmap_testing import python_env, records

HERE = Path(__file__).resolve().parent
CASES_FILE = HERE / "registries" / "deferred_cases.py"
pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning", "ignore::DeprecationWarning")


def probe(case: Case, paths: list[str]) -> dict[str, dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    run_task(case, paths, {}, messages.append)
    return {m["path"]: m["record"] for m in messages if m["type"] == "record"}


def test_loading_the_registry_builds_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "builds.log"
    monkeypatch.setenv("CAPMAP_TEST_BUILD_LOG", str(log))
    cases = registry.load([str(CASES_FILE)]).by_name()
    assert not log.exists()
    # What the page and coverage read comes from the constructor call, not from an instance.
    inventory = {row["name"]: row for row in registry.inventory(registry.load([str(CASES_FILE)]))}
    assert inventory["Wide"]["ref"].endswith(".Wide")
    assert inventory["Wide.half"]["ref"] == inventory["Wide"]["ref"]
    assert not log.exists()
    records_by_path = probe(cases["Wide"], ["eager", "export", "compile"])
    assert {p: r["status"] for p, r in records_by_path.items()} == {
        "eager": "ok",
        "export": "ok",
        "compile": "ok",
    }
    assert log.read_text().split() == ["Wide", str(os.getpid())]


def test_a_deferred_call_builds_the_same_weights_in_every_process() -> None:
    here = deferred(torch.nn.Linear, 8, 4).build()
    script = (
        "import torch; from capmap import deferred; "
        "print(deferred(torch.nn.Linear, 8, 4).build().weight.sum().item())"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=python_env(), check=True
    ).stdout
    assert float(out) == pytest.approx(here.weight.sum().item(), abs=0.0)
    assert not here.training
    # Building does not move the caller's random stream.
    torch.manual_seed(5)
    expected = torch.rand(3)
    torch.manual_seed(5)
    deferred(torch.nn.Linear, 8, 5).build()
    assert torch.equal(torch.rand(3), expected)


def test_a_target_that_cannot_be_built_fails_its_case_in_eager() -> None:
    cases = registry.load([str(CASES_FILE)]).by_name()
    got = probe(cases["Unbuildable"], ["eager", "export", "onnx"])
    assert got["eager"]["status"] == "fail"
    assert got["eager"]["error_type"] == "ValueError"
    assert got["eager"]["message"] == "building the target: needs weights that are not here"
    assert got["export"]["status"] == "eager-fail"
    assert got["onnx"]["status"] == "eager-fail"


def test_every_child_builds_its_own_and_the_worker_builds_none(capmap_bin: Path, tmp_path: Path) -> None:
    log = tmp_path / "builds.log"
    store = tmp_path / "store.db"
    env_log = {"CAPMAP_TEST_BUILD_LOG": str(log)}
    result = subprocess.run(
        [str(capmap_bin), "run", str(CASES_FILE), "--store", str(store), "--all"]
        + ["--paths", "eager,export", "--jobs", "2", "--no-merge"],
        capture_output=True,
        text=True,
        env=python_env(**env_log),
        timeout=300,
        check=False,
    )
    assert result.returncode in (0, 1), result.stderr
    got = records(store)
    assert got[("Wide", "export")]["status"] == "ok"
    assert got[("Wide.half", "export")]["status"] == "ok"
    assert got[("Unbuildable", "eager")]["status"] == "fail"
    builders = [line.split()[1] for line in log.read_text().splitlines()]
    # One build in each of the two children that ran a Wide case, none in their parent: a
    # parent that had built it would have handed the built object down and logged at most once.
    assert len(builders) == 2 and len(set(builders)) == 2

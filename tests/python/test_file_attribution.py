"""Every case is attributed to the library its registry names, whatever the target's form: a
lambda, a method-wrapper, a deferred `getattr`, a `Sequential` subclass that runs no library
line. Its eager record lists the library files it depends on, and its failures point at the
library's lines, not the registry's."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from capmap import surveyed_library
from capmap.probes.task import run_task
from capmap_testing import REPO, toy_library

OPS = """\
import torch


def blur(x):
    return x * 2


def broken(x):
    return x @ torch.ones(7, 7)  # the failing line


class Holder:
    def __init__(self):
        self.net = torch.nn.Linear(4, 4)


class Block(torch.nn.Sequential):
    # Built at registry import; its forward is torch's own.
    def __init__(self):
        super().__init__(torch.nn.Linear(4, 4), torch.nn.ReLU())


def make_block():
    return torch.nn.Sequential(torch.nn.Linear(4, 4))
"""

REGISTRY = """\
import torch
import attriblib.ops as ops
from capmap import case, deferred, library

library("attriblib")
X = [torch.ones(2, 4)]

case("lambda", "g", lambda x: ops.blur(x) + 1, X)
case("method_wrapper", "g", ops.blur.__call__, X)
case("lambda_fails", "g", lambda x: ops.broken(x), X)
case("deferred_getattr", "g", deferred(getattr, deferred(ops.Holder), "net"), X)
case("sequential_subclass", "g", ops.Block(), X)
case("assembled", "g", ops.make_block(), X, covers="attriblib.ops.make_block")
case("plain_torch", "g", torch.relu, X)
"""


@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, dict[str, Any]]]:
    """The eager record of every case of a registry over a small library written for the test."""
    with toy_library(tmp_path_factory.mktemp("lib"), "attriblib", OPS, REGISTRY) as cases:
        found: dict[str, dict[str, Any]] = {}
        for case in cases:
            sent: list[dict[str, Any]] = []
            run_task(case, ["eager"], {}, sent.append)
            found[case.name] = next(m["record"] for m in sent if m["type"] == "record")
        yield found


def line_of(marker: str) -> int:
    return next(i for i, text in enumerate(OPS.splitlines(), 1) if marker in text)


@pytest.mark.parametrize("name", ["lambda", "method_wrapper"])
def test_a_lambda_or_method_wrapper_records_the_library_files_it_runs(
    records: dict[str, dict[str, Any]], name: str
) -> None:
    record = records[name]
    assert record["status"] == "ok"
    # The library's file alone: not the registry's lambda, not capmap, not torch.
    assert list(record["files"]) == ["attriblib/ops.py"]
    # CONTENT.CODE: 16 hex digits each (file_trace.recorded_hash).
    content, code = record["files"]["attriblib/ops.py"].split(".")
    assert len(content) == 16 and code.startswith("py-") and len(code) == 19


def test_a_lambda_s_failure_points_at_the_library_line(records: dict[str, dict[str, Any]]) -> None:
    record = records["lambda_fails"]
    assert record["status"] == "fail"
    assert record["frames"] == [f"attriblib/ops.py:{line_of('the failing line')} in broken"]
    assert list(record["files"]) == ["attriblib/ops.py"]


def test_building_a_deferred_target_is_recorded(records: dict[str, dict[str, Any]]) -> None:
    # The call runs torch's Linear alone; Holder's constructor ran while the target was built.
    assert list(records["deferred_getattr"]["files"]) == ["attriblib/ops.py"]


def test_a_target_that_runs_no_library_line_records_its_definitions(
    records: dict[str, dict[str, Any]],
) -> None:
    # A Sequential subclass (its class is the library's) and a container a library function
    # assembled (the function the case covers).
    assert list(records["sequential_subclass"]["files"]) == ["attriblib/ops.py"]
    assert list(records["assembled"]["files"]) == ["attriblib/ops.py"]
    assert records["plain_torch"]["files"] == {}


def test_a_registry_naming_no_imported_package_keeps_the_target_s_package(tmp_path: Path) -> None:
    # Findable but never imported: an unrelated package that shares the name must not count.
    (tmp_path / "bystander.py").write_text("")
    sys.path.insert(0, str(tmp_path))
    try:
        for name in ("no_such_library_anywhere", "bystander"):
            surveyed_library.survey(name)
            root = surveyed_library.root_for(importlib.import_module("json").dumps)
            assert root is not None and Path(root.root).name == "json", name
        assert surveyed_library.named_root("bystander", find=True) is not None
    finally:
        surveyed_library.survey(None)
        sys.path.remove(str(tmp_path))


def unselectable(snapshot: dict[str, Any], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "snapshot.json"
    path.write_text(json.dumps(snapshot))
    return subprocess.run(
        [sys.executable, str(REPO / "scripts" / "unselectable_cases.py"), str(path), "--list", "--check"],
        capture_output=True,
        text=True,
        check=False,
    )


def test_the_count_of_unselectable_cases(tmp_path: Path) -> None:
    snapshot = {
        "header": {"library": {"name": "kornia"}},
        "cases": [
            {"name": "a", "skip": None, "files": {"kornia/filters/gaussian.py": "0" * 16}},
            {"name": "b", "skip": None, "files": {"capmap/capture.py": "0" * 16}},
            {"name": "c", "skip": None, "files": {}},
            {"name": "d", "skip": "needs weights", "files": {}},
        ],
    }
    done = unselectable(snapshot, tmp_path)
    assert done.returncode == 1
    assert done.stdout.splitlines() == ["unselectable: 2 of 3 cases", "  b", "  c"]
    snapshot["cases"] = snapshot["cases"][:1]
    assert unselectable(snapshot, tmp_path).returncode == 0

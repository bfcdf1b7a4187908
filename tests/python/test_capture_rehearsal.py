"""The library code only a capture runs is recorded without tracing the exports: the task's
rehearsal calls the capture module under an export's flags. When the rehearsal fails, the
exports keep their frame trace, and an export traced again in the same task (the ONNX
exporter's own attempt after the export path failed) only collects dynamo's code."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import Any

import pytest
import torch
from capmap import surveyed_library
from capmap.probes.context import ProbeContext
from capmap.probes.task import run_task
from capmap.tracing.file_trace import LibraryFileTrace
from capmap_testing import toy_library

OPS = """\
import torch


def export_helper(x):
    return x * 2.0


def branchy(x):
    if torch.compiler.is_exporting():
        y = export_helper(x)
        if y.sum() > 0:  # a branch on a tensor's value: every export fails here
            return y
        return -y
    return x * 2.0


def fragile(x):
    # Real tensors under the export's flags fail: the rehearsal cannot run this one.
    if torch.compiler.is_exporting():
        if not torch._subclasses.fake_tensor.is_fake(x):
            raise RuntimeError("real tensors under an export")
        return export_helper(x)
    return x * 2.0
"""

REGISTRY = """\
import torch
import tracerep.ops as ops
from capmap import case, library

library("tracerep")
case("branchy", "g", ops.branchy, [torch.ones(2, 3)])
case("fragile", "g", ops.fragile, [torch.ones(2, 3)])
"""


@pytest.fixture(scope="module")
def cases(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    with toy_library(tmp_path_factory.mktemp("lib"), "tracerep", OPS, REGISTRY) as found:
        yield {c.name: c for c in found}


@pytest.fixture(scope="module")
def case(cases: dict[str, Any]) -> Any:
    return cases["branchy"]


def records_of(case: Any, paths: list[str]) -> dict[str, dict[str, Any]]:
    sent: list[dict[str, Any]] = []
    run_task(case, paths, {}, sent.append)
    return {m["path"]: m["record"] for m in sent if m["type"] == "record"}


def traced_exports(case: Any, paths: list[str], monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Whether a frame trace was on for each torch.export.export the task made."""
    seen: list[bool] = []
    export = torch.export.export

    def watched(*args: Any, **kwargs: Any) -> Any:
        seen.append(sys.gettrace() is not None)
        return export(*args, **kwargs)

    monkeypatch.setattr(torch.export, "export", watched)
    records_of(case, paths)
    return seen


def test_after_the_rehearsal_no_export_runs_under_a_frame_trace(
    case: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert traced_exports(case, ["eager", "export"], monkeypatch) == [False]


def test_a_rehearsal_that_fails_leaves_the_export_its_trace(
    cases: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert traced_exports(cases["fragile"], ["eager", "export"], monkeypatch) == [True]
    records = records_of(cases["fragile"], ["eager", "export"])
    assert records["export"]["status"] == "ok"
    assert records["export"]["functions"]["tracerep/ops.py"] == "export_helper fragile"


def test_the_export_path_s_trace_records_the_export_only_helper_once(case: Any) -> None:
    records = records_of(case, ["eager", "export", "onnx"])
    assert "export_helper" not in records["eager"]["functions"]["tracerep/ops.py"]
    assert records["export"]["status"] == "fail"
    assert records["export"]["functions"]["tracerep/ops.py"] == "branchy export_helper"
    # The exporter's own attempts run the same code: nothing more to record.
    assert records["onnx"]["status"] == "export-fail"
    assert "functions" not in records["onnx"]


def test_without_the_export_path_the_onnx_path_traces_its_own_export(case: Any) -> None:
    records = records_of(case, ["eager", "onnx"])
    assert records["onnx"]["status"] == "export-fail"
    assert records["onnx"]["functions"]["tracerep/ops.py"] == "branchy export_helper"


def test_a_repeat_of_the_same_export_runs_untraced(case: Any) -> None:
    root = surveyed_library.root_for(case.target)
    assert root is not None
    ctx = ProbeContext(case=case, settings={}, root=root, files=LibraryFileTrace(root))
    seen = []
    for kind in ("non-strict", "non-strict", "strict", None, None):
        with ctx.library_trace(kind):
            seen.append(sys.gettrace() is not None)
    assert seen == [True, False, True, True, True]
    ctx = ProbeContext(case=case, settings={}, root=root, files=LibraryFileTrace(root), rehearsed=True)
    seen = []
    for kind in ("non-strict", "strict", None):
        with ctx.library_trace(kind):
            seen.append(sys.gettrace() is not None)
    assert seen == [False, False, True]  # a dynamic-shape export keeps its trace

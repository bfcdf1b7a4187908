"""The aoti path: AOTInductor compiles and packages the exported program, loads the package and
runs it, on real torch (one small compile per case)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from capmap import registry
from capmap.cases import Case
from capmap.probes import catalog
from capmap.probes.task import run_task

HERE = Path(__file__).resolve().parent
CASES_FILE = HERE / "registries" / "dynamic_cases.py"
pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning", "ignore::DeprecationWarning")


@pytest.fixture(scope="module")
def cases() -> dict[str, Case]:
    return registry.load([str(CASES_FILE)]).by_name()


def records(case: Case, paths: list[str]) -> dict[str, dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    run_task(case, paths, {}, messages.append)
    return {m["path"]: m["record"] for m in messages if m["type"] == "record"}


def test_aoti_is_a_plug_in_that_builds_on_export() -> None:
    spec = catalog.module("aoti").PATH
    assert spec.builds_on == ("export",) and not spec.default
    assert catalog.run_order(["aoti", "export", "eager"]) == ["eager", "export", "aoti"]
    assert spec.statuses["compile-fail"] == "fail"


def test_the_export_path_s_program_is_compiled_packaged_loaded_and_agrees(cases: dict[str, Case]) -> None:
    found = records(cases["elementwise"], ["export", "aoti"])
    aoti = found["aoti"]
    assert found["export"]["status"] == "ok"
    assert aoti["status"] == "ok", aoti
    assert aoti["shared_trace"] is True
    assert aoti["package_kb"] > 1 and aoti["compile_seconds"] > 0
    assert set(aoti["stages"]) == {"load", "run"}
    assert aoti["max_abs_diff"] <= 1e-5


def test_without_the_export_path_aoti_exports_for_itself(cases: dict[str, Case]) -> None:
    aoti = records(cases["positive"], ["aoti"])["aoti"]
    assert aoti["status"] == "ok", aoti  # a data-dependent output shape compiles too
    assert aoti["shared_trace"] is False and "export" in aoti["stages"]


def test_a_program_that_cannot_be_exported_has_nothing_to_compile(cases: dict[str, Case]) -> None:
    aoti = records(cases["branch_on_count"], ["aoti"])["aoti"]
    assert aoti["status"] == "export-fail"
    assert "data-dependent" in aoti["message"].lower()


def test_state_the_trace_bakes_in_starts_where_eager_started(cases: dict[str, Case]) -> None:
    # The module counts its calls in Python; every path starts from the count eager started
    # from, so the count the trace bakes in is the one eager's first call saw.
    aoti = records(cases["calls"], ["export", "aoti"])["aoti"]
    assert aoti["status"] == "ok", aoti
    assert aoti["max_abs_diff"] == 0.0

"""The executorch path on real ExecuTorch: a program XNNPACK takes whole, one it takes in part,
one the edge dialect refuses, one whose XNNPACK result a zero tolerance tells from eager's; the
one-line refusal where ExecuTorch is not installed; the figure on the page; the repro script.

ExecuTorch lives in an environment of its own beside this torch (`python -m capmap.make_env
--system-site-packages`): scripts/test.sh makes it under build/envs/, and so does this module
when it is missing."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from capmap.probes import catalog
from capmap_testing import REPO, python_env, records, run_capmap

REGISTRY = Path(__file__).resolve().parent / "registries" / "executorch_cases.py"
ENV_FOLDER = REPO / "build" / "envs" / "executorch"
PINS = ["executorch==1.5.1", "torch==2.13.0"]


@pytest.fixture(scope="module")
def executorch_python() -> Path:
    chosen = os.environ.get("CAPMAP_EXECUTORCH_PYTHON")
    if chosen:
        return Path(chosen)
    python = ENV_FOLDER / "bin" / "python"
    if not python.exists():
        done = subprocess.run(
            [sys.executable, "-m", "capmap.make_env", "--system-site-packages", str(ENV_FOLDER), *PINS],
            capture_output=True,
            text=True,
            env=python_env(),
            timeout=900,
            check=False,
        )
        assert done.returncode == 0, done.stderr
    return python


@pytest.fixture(scope="module")
def survey(capmap_bin: Path, executorch_python: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    store = tmp_path_factory.mktemp("executorch") / "results.db"
    surveyed(capmap_bin, store, "export,executorch", "--python", executorch_python)
    return store


def surveyed(capmap_bin: Path, store: Path, paths: str, *extra: str | Path) -> None:
    """The test registry through `paths` into `store`, two tasks at a time."""
    done = run_capmap(
        capmap_bin, "run", REGISTRY, "--paths", paths, "--jobs", "2", "--store", store, *extra, timeout=900
    )
    assert done.returncode == 0, done.stderr[-3000:]


def cell(store: Path, name: str) -> dict[str, Any]:
    return records(store)[(name, "executorch")]


def test_the_path_builds_on_export_and_says_how_it_installs() -> None:
    spec = catalog.module("executorch").PATH
    assert spec.builds_on == ("export",) and not spec.default and spec.static_export
    assert catalog.run_order(["executorch", "export", "eager"]) == ["eager", "export", "executorch"]
    assert {spec.statuses[s] for s in ("edge-fail", "lower-fail", "load-fail", "run-fail")} == {"fail"}
    if importlib.util.find_spec("executorch") is None:
        hint = catalog.unavailable()["executorch"]["install"]
        assert "make_env --system-site-packages" in hint and "--python" in hint


@pytest.mark.skipif(importlib.util.find_spec("executorch") is not None, reason="ExecuTorch is installed here")
def test_without_executorch_a_run_stops_before_any_work_with_one_line(
    capmap_bin: Path, tmp_path: Path
) -> None:
    store = tmp_path / "results.db"
    done = run_capmap(capmap_bin, "run", REGISTRY, "--paths", "executorch", "--store", store)
    assert done.returncode == 2
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, done.stderr
    assert "executorch" in lines[0] and "make_env" in lines[0]
    assert not store.exists() or not records(store)


def test_a_program_xnnpack_takes_whole_runs_delegated_and_agrees(survey: Path) -> None:
    found = cell(survey, "conv_relu")
    assert found["status"] == "ok", found
    assert found["shared_trace"] is True  # the export path's program, not a second export
    assert found["delegated_nodes"] >= 2 and found["undelegated_nodes"] == 0
    assert found["delegated_subgraphs"] == 1 and found["undelegated_ops"] == {}
    total = found["delegated_nodes"]
    assert found["figure"] == f"XNNPACK runs {total} of {total} nodes (100 %)"
    assert found["pte_kb"] > 0 and found["lower_seconds"] > 0
    assert set(found["stages"]) == {"to_executorch", "load", "run"}
    assert found["max_abs_diff"] <= 1e-4


def test_a_program_xnnpack_takes_in_part_names_what_stayed_portable(survey: Path) -> None:
    found = cell(survey, "gated")
    assert found["status"] == "ok", found
    assert found["delegated_nodes"] >= 1 and found["undelegated_nodes"] >= 2
    assert "aten.where.self" in found["undelegated_ops"]
    assert sum(found["undelegated_ops"].values()) == found["undelegated_nodes"]
    total = found["delegated_nodes"] + found["undelegated_nodes"]
    assert found["figure"].startswith(f"XNNPACK runs {found['delegated_nodes']} of {total} nodes (")
    assert "100 %" not in found["figure"]


def test_an_operator_outside_the_edge_dialect_fails_at_to_edge(survey: Path) -> None:
    found = cell(survey, "solved")
    assert records(survey)[("solved", "export")]["status"] == "ok"
    assert found["status"] == "edge-fail", found
    assert found["stage"] == "to_edge"
    assert "_linalg_solve_ex" in found["message"] and "Core ATen" in found["message"]


def test_a_zero_tolerance_tells_xnnpack_from_eager(survey: Path) -> None:
    loose, exact = cell(survey, "squashed"), cell(survey, "squashed[exact]")
    assert loose["status"] == "ok", loose
    assert exact["status"] == "mismatch", exact
    # XNNPACK's tanh is within float32 steps of eager's, never the same values.
    assert 0 < exact["max_abs_diff"] < 1e-5
    assert exact["snr_db"] > 80
    assert "beyond tolerance" in exact["message"]


def test_an_input_the_program_writes_into_is_not_taken_for_an_output(survey: Path) -> None:
    found = cell(survey, "doubled_in_place")
    assert found["status"] == "ok", found
    assert found["input_mutations"] == 1 and found["max_abs_diff"] <= 1e-5


def test_merge_classifies_the_failure_and_the_page_shows_the_share(
    capmap_bin: Path, survey: Path, tmp_path: Path
) -> None:
    snapshot = tmp_path / "snapshot.json"
    done = run_capmap(capmap_bin, "merge", "--store", survey, "--out", snapshot)
    assert done.returncode == 0, done.stderr
    cases = {c["name"]: c for c in json.loads(snapshot.read_text())["cases"]}
    solved = cases["solved"]["paths"]["executorch"]
    assert solved["page_status"] == "fail"
    assert solved["category"] == "missing-executorch-lowering"
    assert "torch.linalg.solve" in solved["cause"]
    page = tmp_path / "page.html"
    assert run_capmap(capmap_bin, "render", snapshot, "--html", page).returncode == 0
    html = page.read_text()
    assert "ExecuTorch (XNNPACK)" in html
    figure = cases["conv_relu"]["paths"]["executorch"]["figure"]
    assert figure.replace(" %", "\u00a0%") in html  # the number keeps its percent sign


def test_the_repro_script_stands_alone_and_reproduces(
    capmap_bin: Path, survey: Path, executorch_python: Path, tmp_path: Path
) -> None:
    script = tmp_path / "solved.py"
    done = run_capmap(capmap_bin, "repro", "solved", "--path", "executorch", "--store", survey, "-o", script)
    assert done.returncode == 0, done.stderr
    text = script.read_text()
    # Only the registry is loaded through capmap; the path's steps are plain ExecuTorch calls.
    assert "capmap.probes" not in text and "to_edge_transform_and_lower(program" in text
    ran = subprocess.run(
        [str(executorch_python), str(script)],
        capture_output=True,
        text=True,
        timeout=300,
        env=python_env(),
        check=False,
    )
    outcome = [line for line in ran.stdout.splitlines() if line.startswith("outcome:")]
    assert outcome and outcome[0].startswith("outcome: edge-fail"), ran.stdout[-2000:] + ran.stderr[-2000:]


def test_a_run_of_the_path_alone_adds_its_column_to_a_survey(
    capmap_bin: Path, survey: Path, tmp_path: Path
) -> None:
    # The survey of this environment (no ExecuTorch here) on the default-like paths ...
    main_store = tmp_path / "main.db"
    surveyed(capmap_bin, main_store, "export,compile")
    published = tmp_path / "published.json"
    assert run_capmap(capmap_bin, "merge", "--store", main_store, "--out", published).returncode == 0
    assert "executorch" not in json.loads(published.read_text())["header"]["versions"]
    # ... takes the column measured in ExecuTorch's environment: nothing else is lost.
    merged = tmp_path / "merged.json"
    done = run_capmap(capmap_bin, "merge", "--store", survey, "--baseline", published, "--out", merged)
    assert done.returncode == 0, done.stderr
    snapshot = json.loads(merged.read_text())
    header = snapshot["header"]
    assert header["paths"] == ["export", "executorch", "compile"] and header["complete"]
    assert header["versions"]["executorch"] == "1.5.1"
    conv = next(c for c in snapshot["cases"] if c["name"] == "conv_relu")["paths"]
    assert conv["compile"]["carried"] is True and conv["executorch"]["page_status"] == "ok"
    assert "carried" not in conv["executorch"]
    # A later run here, without ExecuTorch, keeps the column it cannot measure.
    again = tmp_path / "again.json"
    done = run_capmap(capmap_bin, "merge", "--store", main_store, "--baseline", merged, "--out", again)
    assert done.returncode == 0, done.stderr
    kept = json.loads(again.read_text())
    assert "executorch" in kept["header"]["paths"]
    solved = next(c for c in kept["cases"] if c["name"] == "solved")["paths"]["executorch"]
    assert solved["status"] == "edge-fail" and solved["carried"] is True

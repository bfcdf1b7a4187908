"""export-dynamic and onnx-dynamic on small programs whose outcomes are known: real torch.export,
the ONNX exporter and ONNX Runtime, each case traced once with dynamic dims and run at other sizes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from capmap import registry
from capmap.cases import Case
from capmap.probes.task import run_task
from capmap_testing import run_capmap

HERE = Path(__file__).resolve().parent
CASES_FILE = HERE / "registries" / "dynamic_cases.py"
PATHS = ["eager", "export-dynamic", "onnx-dynamic"]
DIMS = [(0, "batch"), (2, "spatial"), (3, "spatial")]
pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning", "ignore::DeprecationWarning")


def source_line(marker: str) -> int:
    lines = CASES_FILE.read_text().splitlines()
    return next(i for i, text in enumerate(lines, 1) if marker in text)


@pytest.fixture(scope="module")
def cases() -> dict[str, Case]:
    return registry.load([str(CASES_FILE)]).by_name()


@pytest.fixture(scope="module")
def records(cases: dict[str, Case]) -> dict[str, dict[str, dict[str, Any]]]:
    found: dict[str, dict[str, dict[str, Any]]] = {}
    for name, c in cases.items():
        messages: list[dict[str, Any]] = []
        run_task(c, PATHS, {}, messages.append)
        found[name] = {m["path"]: m["record"] for m in messages if m["type"] == "record"}
    return found


def test_the_dynamic_onnx_path_runs_after_the_program_it_converts(cases: dict[str, Case]) -> None:
    messages: list[dict[str, Any]] = []
    run_task(cases["elementwise"], ["onnx-dynamic", "export-dynamic"], {}, messages.append)
    assert [m["path"] for m in messages if m["type"] == "path"] == ["eager", "export-dynamic", "onnx-dynamic"]
    onnx = next(m["record"] for m in messages if m["type"] == "record" and m["path"] == "onnx-dynamic")
    assert onnx["shared_trace"] is True


def test_elementwise_stays_dynamic_in_batch_and_space_on_both_paths(records: Any) -> None:
    for path in ("export-dynamic", "onnx-dynamic"):
        r = records["elementwise"][path]
        assert r["status"] == "ok", r
        assert r["dynamic_dims"] == [f"input 0 dim {d} ({k})" for d, k in DIMS]
        assert r["sizes_checked"] == [
            "traced: [2, 3, 8, 8]",
            "batch ×2: [4, 3, 8, 8]",
            "batch ×3 and spatial +8: [6, 3, 16, 16]",
        ]
    assert "Sigmoid" in records["elementwise"]["onnx-dynamic"]["op_types"]


def test_a_branch_on_the_batch_size_is_specialized_and_says_where(records: Any) -> None:
    line = source_line("BRANCH ON BATCH")
    for path in ("export-dynamic", "onnx-dynamic"):
        r = records["two_only"][path]
        assert r["status"] == "specialized", r
        assert r["specialized_dims"] == ["input 0 dim 0 (batch) = 2"]
        assert r["frames"] == [f"dynamic_cases.py:{line} in two_only"]
        assert r["message"].startswith("specialized: input 0 dim 0 (batch) = 2; ")
        assert f"dynamic_cases.py:{line} in two_only" in r["message"]
        assert "Eq(" in r["message"]


def test_a_python_int_of_a_size_pins_it(records: Any) -> None:
    r = records["rows_from_size"]["export-dynamic"]
    assert r["status"] == "specialized"
    assert f"dynamic_cases.py:{source_line('PYTHON INT OF A SIZE')}" in r["message"]


def test_a_reshape_to_a_constant_keeps_a_guard_that_pins_the_batch(records: Any) -> None:
    r = records["rows_of_six"]["export-dynamic"]
    assert r["status"] == "specialized" and r["stage"] == "run at batch ×2"
    assert r["specialized_dims"] == ["input 0 dim 0 (batch)", "input 0 dim 1 (spatial)"]
    assert r["message"].startswith("Guard failed: ")
    # The guard's words are torch's; the line that added it is the registry's reshape.
    line = source_line("RESHAPE TO A CONSTANT")
    assert r["frames"] == [f"dynamic_cases.py:{line} in rows_of_six"]
    # The ONNX graph has no such guard: its Reshape to (6, -1) is right at every size.
    assert records["rows_of_six"]["onnx-dynamic"]["status"] == "ok"


def test_a_guard_added_inside_torch_names_the_library_line_that_called_it(records: Any) -> None:
    line = source_line("RESHAPE TO A CONSTANT")
    for path in ("export-dynamic", "onnx-dynamic"):
        r = records["rows_of_six[batch]"][path]
        assert r["status"] == "specialized", r
        assert r["specialized_dims"] == ["input 0 dim 0 (batch) = 2"]
        # torch.reshape's own code adds the guard; the cause points at the call that made it.
        assert r["frames"] == [f"dynamic_cases.py:{line} in rows_of_six"]
        assert f"at dynamic_cases.py:{line} in rows_of_six" in r["message"]


def test_only_the_dims_asked_to_vary_are_dynamic(records: Any) -> None:
    # Channels stay static: a batch-only export of an image keeps 3 channels and its size.
    r = records["pool_batch_one"]["export-dynamic"]
    assert r["dynamic_dims"] == [
        "input 0 dim 0 (batch)",
        "input 0 dim 2 (spatial)",
        "input 0 dim 3 (spatial)",
    ]
    r = records["two_only"]["export-dynamic"]
    assert r["specialized_dims"] == ["input 0 dim 0 (batch) = 2"] and "dynamic_dims" in r
    assert r["dynamic_dims"] == []


def test_a_data_dependent_output_shape_stays_dynamic(records: Any) -> None:
    for path in ("export-dynamic", "onnx-dynamic"):
        r = records["positive"][path]
        assert r["status"] == "ok", r
        assert len(r["sizes_checked"]) == 3
    assert "NonZero" in records["positive"]["onnx-dynamic"]["op_types"]


def test_a_branch_on_data_fails_to_export(records: Any) -> None:
    r = records["branch_on_count"]["export-dynamic"]
    assert r["status"] == "fail"
    assert "data-dependent" in r["message"].lower() or "guard" in r["message"].lower()
    assert records["branch_on_count"]["onnx-dynamic"]["status"] == "export-fail"


def test_state_baked_into_the_trace_is_a_mismatch(records: Any) -> None:
    for path in ("export-dynamic", "onnx-dynamic"):
        r = records["calls"][path]
        # Every path starts from eager's count, so the traced size agrees; the next size's
        # eager call counts on, and the count the trace baked in differs from it.
        assert r["status"] == "mismatch", r
        assert r["message"].startswith("at batch"), r["message"]


def test_a_batch_of_one_is_traced_size_obliviously_and_grows(records: Any) -> None:
    r = records["pool_batch_one"]["export-dynamic"]
    assert r["status"] == "ok" and r["size_oblivious"] is True
    assert r["sizes_checked"][1:] == ["batch ×2: [2, 3, 8, 8]", "batch ×3 and spatial +8: [3, 3, 16, 16]"]
    assert records["pool_batch_one"]["onnx-dynamic"]["status"] == "ok"


def test_a_case_that_lets_nothing_vary_is_checked_at_its_own_sizes(records: Any) -> None:
    for path in ("export-dynamic", "onnx-dynamic"):
        r = records["fixed"][path]
        assert r["status"] == "ok-unverified"
        assert r["message"] == "no dimension may vary: only the traced sizes were checked"


def test_specialized_is_a_page_status_with_a_dynamic_shape_cause(capmap_bin: Path, tmp_path: Path) -> None:
    done = run_capmap(
        capmap_bin, "run", CASES_FILE, "--only", "two_only", "--only", "elementwise",
        "--paths", "eager,export-dynamic,onnx-dynamic", "--jobs", "2", "--store", tmp_path / "results.db",
        timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    snapshot = json.loads((tmp_path / "snapshot.json").read_text())
    assert snapshot["header"]["paths"] == ["eager", "onnx-dynamic", "export-dynamic"]
    labels = {p: info["label"] for p, info in snapshot["header"]["path_info"].items()}
    assert labels["export-dynamic"] == "torch.export, dynamic shapes"
    cases = {c["name"]: c for c in snapshot["cases"]}
    pinned = cases["two_only"]["paths"]["export-dynamic"]
    assert pinned["page_status"] == "specialized"
    assert pinned["category"] == "dynamic-shape"
    assert pinned["cause"].startswith("Export pinned a size meant to vary")
    assert cases["elementwise"]["paths"]["onnx-dynamic"]["page_status"] == "ok"
    md = run_capmap(capmap_bin, "render", tmp_path / "snapshot.json", "--md", tmp_path / "s.md")
    assert md.returncode == 0, md.stderr
    assert "torch.export, dynamic shapes" in (tmp_path / "s.md").read_text()
    # A baseline where the batch stayed dynamic: the diff names the path that regressed.
    for record in cases["two_only"]["paths"].values():
        record.update(status="ok", page_status="ok")
    (tmp_path / "before.json").write_text(json.dumps(snapshot))
    diff = run_capmap(capmap_bin, "diff", tmp_path / "before.json", tmp_path / "snapshot.json")
    assert "By path: export-dynamic 1 regression; onnx-dynamic 1 regression" in diff.stdout, diff.stdout


def test_a_size_the_programs_guard_refuses_is_named_with_the_guard_and_its_line(
    cases: dict[str, Case],
) -> None:
    # What onnx-dynamic asks when ONNX Runtime fails at another size: does the exported
    # program's own guard refuse that size (the trace pinned it after all)?
    from capmap.capture import flat_case
    from capmap.probes import dynamic_shapes
    from capmap.probes.onnx_dynamic import _pinned_at_run

    flat = flat_case(cases["rows_of_six"])
    found = dynamic_shapes.trace_module(
        flat.module, flat.plan.fresh_tensors(), {"batch", "spatial"}, strict=False, captured_tensors=list
    )
    assert found.error is None and not found.specialized
    grown = next(s.inputs for s in found.sets if s.label == "batch ×2")
    pinned, guard = dynamic_shapes.refused_at(found, grown)
    assert pinned == ["input 0 dim 0 (batch)", "input 0 dim 1 (spatial)"] and guard.startswith("Guard failed")
    assert dynamic_shapes.refused_at(found, tuple(flat.plan.fresh_tensors())) == ([], "")
    fields = _pinned_at_run(found, pinned, guard, {"message": "[ONNXRuntimeError] : 2 : Reshape failed"})
    assert fields["message"].startswith("specialized: input 0 dim 0 (batch), input 0 dim 1 (spatial): ")
    assert fields["message"].endswith("; ONNX Runtime fails there: [ONNXRuntimeError] : 2 : Reshape failed")
    assert fields["specialized_dims"] == pinned

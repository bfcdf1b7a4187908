"""The probes on the capture test registry: real torch, ONNX Runtime and inductor on small cases.

Every case of tests/python/registries/capture_cases.py runs once through all four paths (a
module-scoped fixture); the tests then read the records, as the supervisor would.
"""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import pytest
from capmap import registry
from capmap.cases import Case
from capmap.probes.task import run_task
from capmap_testing import python_env

HERE = Path(__file__).resolve().parent
CASES_FILE = HERE / "registries" / "capture_cases.py"
# torch's own deprecation notices raised while probing; in a worker they land in the task log.
pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning", "ignore::DeprecationWarning")

ALL_PATHS = ["eager", "onnx", "export", "compile"]
GB_ID = re.compile(r"^GB\d{4}$")


class Task:
    """The messages run_task emitted for one case, with the records by path."""

    def __init__(self, case: Case, paths: list[str], settings: dict[str, Any]) -> None:
        self.messages: list[dict[str, Any]] = []
        run_task(case, paths, settings, self.messages.append)
        self.records = {m["path"]: m["record"] for m in self.messages if m["type"] == "record"}

    def __getitem__(self, path: str) -> dict[str, Any]:
        return self.records[path]

    def statuses(self) -> dict[str, str]:
        return {p: r["status"] for p, r in self.records.items()}


@pytest.fixture(scope="module")
def cases() -> dict[str, Case]:
    return registry.load([str(CASES_FILE)]).by_name()


@pytest.fixture(scope="module")
def tasks(cases: dict[str, Case]) -> dict[str, Task]:
    return {name: Task(c, ALL_PATHS, {}) for name, c in cases.items()}


def source_line(marker: str) -> int:
    lines = CASES_FILE.read_text().splitlines()
    return next(i for i, text in enumerate(lines, 1) if marker in text)


def test_every_requested_path_ends_in_exactly_one_record(tasks: dict[str, Task]) -> None:
    for name, task in tasks.items():
        records = [m["path"] for m in task.messages if m["type"] == "record"]
        assert sorted(records) == sorted(ALL_PATHS), name
        for record in task.records.values():
            assert isinstance(record["seconds"], float) and record["seconds"] >= 0
        json.dumps(task.messages)  # everything must travel as JSON


def test_paths_run_in_contract_order_each_announced_before_its_record(tasks: dict[str, Task]) -> None:
    events = [(m["type"], m["path"]) for m in tasks["plain_sin"].messages]
    order = ["eager", "export", "onnx", "compile"]
    assert events == [kind_path for p in order for kind_path in (("path", p), ("record", p))]


def test_plain_elementwise_is_captured_by_every_path_in_one_graph(tasks: dict[str, Task]) -> None:
    task = tasks["plain_sin"]
    assert task.statuses() == {"eager": "ok", "export": "ok", "onnx": "ok", "compile": "ok"}
    assert task["eager"]["outputs"] == ["Tensor[2,3] float32"]
    assert task["export"]["graph_nodes"] >= 4 and task["export"]["strict"] is False
    onnx = task["onnx"]
    assert {"Sin", "Mul", "Add"} <= set(onnx["op_types"]) and onnx["op_types"] == sorted(onnx["op_types"])
    assert onnx["opset"] == 18 and onnx["size_kb"] > 0
    assert set(onnx["stages"]) == {"export", "checker", "ort_load", "ort_run"}
    # The export path ran first in the same task, so ONNX converted its program.
    assert onnx["strategy"] == "non-strict" and onnx["shared_trace"] is True
    assert onnx["max_abs_diff"] < 1e-5
    compiled = task["compile"]
    assert compiled["graph_breaks"] == 0 and compiled["break_reasons"] == []
    assert compiled["graph_count"] == 1 and compiled["recompiled"] is False
    # Compiling is part of the first run. dynamo times it on the wall clock, the probe the first
    # run on the monotonic one: on a loaded VM they drift apart (seen: 23.79 s against 23.68 s).
    assert 0 < compiled["compile_seconds"] <= compiled["first_run_seconds"] + 1.0


def test_value_dependent_branch_fails_export_and_breaks_compile(tasks: dict[str, Task]) -> None:
    task = tasks["branch_on_value"]
    branch = f"capture_cases.py:{source_line('if x.sum() > 0')} in branch_on_value"
    assert task["eager"]["status"] == "ok"
    export = task["export"]
    assert export["status"] == "fail"
    assert export["error_type"] == "GuardOnDataDependentSymNode"
    assert "data-dependent" in export["message"] and "graph()" not in export["message"]
    assert export["frames"][-1] == branch
    onnx = task["onnx"]
    # No program to share: the exporter tried its own strategies and failed on the same line.
    assert onnx["status"] == "export-fail" and "strategy" not in onnx
    assert onnx["frames"][-1] == branch
    compiled = task["compile"]
    assert compiled["status"] == "ok-breaks"
    assert compiled["graph_breaks"] == 1 and compiled["distinct_breaks"] == 1
    assert compiled["graph_count"] == 2
    (reason,) = compiled["break_reasons"]
    assert "data-dependent branching" in reason["reason"].lower()
    assert GB_ID.match(reason["gb_id"])
    assert reason["where"] == branch


def test_a_frame_dynamo_gives_up_on_counts_as_a_break_with_no_graph(tasks: dict[str, Task]) -> None:
    task = tasks["halve_while_large"]
    assert task["export"]["status"] == "fail"
    compiled = task["compile"]
    # A break inside a loop makes dynamo run the whole function as Python: no graph at all.
    assert compiled["status"] == "ok-breaks"
    assert compiled["graph_count"] == 0 and "no graph" in compiled["note"]
    assert compiled["graph_breaks"] == 1
    (reason,) = compiled["break_reasons"]
    assert GB_ID.match(reason["gb_id"]) and "data-dependent" in reason["reason"].lower()
    assert reason["where"] == f"capture_cases.py:{source_line('# loop branch')} in halve_while_large"


def test_item_read_back_breaks_compile_but_exports(tasks: dict[str, Task]) -> None:
    task = tasks["scale_by_max"]
    assert task["export"]["status"] == "ok" and task["onnx"]["status"] == "ok"
    compiled = task["compile"]
    assert compiled["status"] == "ok-breaks" and compiled["graph_breaks"] == 1
    (reason,) = compiled["break_reasons"]
    assert "item()" in reason["reason"] and GB_ID.match(reason["gb_id"])


def test_value_dependent_output_shape(tasks: dict[str, Task]) -> None:
    task = tasks["positive_indices"]
    assert task["eager"]["outputs"][0].endswith("int64")
    assert task["export"]["status"] == "ok"
    assert task["onnx"]["status"] == "ok" and "NonZero" in task["onnx"]["op_types"]
    compiled = task["compile"]
    assert compiled["status"] == "ok-breaks" and compiled["graph_breaks"] == 1
    assert "nonzero" in compiled["break_reasons"][0]["reason"]


def test_print_in_forward_is_a_graph_break_and_lands_in_the_log(tasks: dict[str, Task]) -> None:
    task = tasks["chatty"]
    assert task.statuses() == {"eager": "ok", "export": "ok", "onnx": "ok", "compile": "ok-breaks"}
    compiled = task["compile"]
    assert compiled["graph_breaks"] == 1 and "print" in compiled["break_reasons"][0]["reason"]
    assert compiled["break_reasons"][0]["where"] == f"capture_cases.py:{source_line('print(')} in chatty"
    assert "chatty: forward ran" in task["eager"]["log_tail"]


def test_exporter_chatter_is_captured_in_the_record(tasks: dict[str, Task]) -> None:
    assert "[torch.onnx]" in tasks["plain_sin"]["onnx"]["log_tail"]


def test_random_operator_without_check_is_unverified_in_every_path(tasks: dict[str, Task]) -> None:
    task = tasks["noisy"]
    assert task.statuses() == {
        "eager": "ok",
        "export": "ok-unverified",
        "onnx": "ok-unverified",
        "compile": "ok-unverified",
    }
    assert any("Random" in op for op in task["onnx"]["op_types"])
    assert "max_abs_diff" not in task["onnx"]


def test_every_path_starts_from_the_random_state_of_the_eager_reference(tasks: dict[str, Task]) -> None:
    import torch

    torch.rand(100)  # whatever ran before the task, the task draws the same numbers
    again = Task(registry.load([str(CASES_FILE)]).by_name()["checked_noisy"], ["eager", "export", "onnx"], {})
    for task in (tasks["checked_noisy"], again):
        # The exported program draws from torch's generator, seeded as the reference was: the
        # same numbers. ONNX Runtime's RandomUniformLike has a generator of its own.
        assert task["export"]["status"] == "ok" and task["export"]["max_abs_diff"] == 0.0
        assert task["onnx"]["status"] == "mismatch"
    assert tasks["checked_noisy"]["compile"]["status"] in {"ok", "mismatch"}


def test_outputs_within_the_tolerance_of_zero_are_unverified_in_every_path(tasks: dict[str, Task]) -> None:
    """A vacuous comparison is not a check: the cell says so, and a real one stays `ok`."""
    vanishing = tasks["vanishing"]
    for path in ("onnx", "export", "compile"):
        assert vanishing[path]["status"] == "ok-unverified", (path, vanishing[path])
        assert "within the tolerance of zero" in vanishing[path]["message"]
        assert tasks["mean_of"][path]["status"] == "ok"


def test_eager_failure_is_every_path_s_failure(tasks: dict[str, Task]) -> None:
    task = tasks["broken"]
    eager = task["eager"]
    assert eager["status"] == "fail" and eager["error_type"] == "RuntimeError"
    assert eager["frames"] == [f"capture_cases.py:{source_line('x @ torch.ones')} in broken"]
    for path in ("export", "onnx", "compile"):
        record = task[path]
        assert record["status"] == "eager-fail"
        assert (record["error_type"], record["message"]) == (eager["error_type"], eager["message"])


def test_dicts_and_nested_tuples_are_flattened_and_compared(tasks: dict[str, Task]) -> None:
    task = tasks["several_outputs"]
    assert task["eager"]["outputs"] == ["Tensor[2,3] float32"] * 3 + ["Tensor[2,3] bool"]
    assert task.statuses() == {"eager": "ok", "export": "ok", "onnx": "ok", "compile": "ok"}


def test_numeric_divergence_is_a_mismatch_with_its_largest_difference(tasks: dict[str, Task]) -> None:
    task = tasks["diverges_when_captured"]
    for path in ("export", "onnx", "compile"):
        record = task[path]
        assert record["status"] == "mismatch", path
        assert record["check_failed"] == "values"
        assert record["max_abs_diff"] == pytest.approx(0.5)
        assert record["mismatched"] == 6
        assert "beyond tolerance" in record["message"]


def test_output_without_tensors_has_nothing_to_capture(tasks: dict[str, Task]) -> None:
    assert set(tasks["counts_only"].statuses().values()) == {"no-tensor-output"}


def test_module_parameters_and_bound_kwargs_are_captured(tasks: dict[str, Task]) -> None:
    task = tasks["affine[scaled]"]
    assert task.statuses() == {"eager": "ok", "export": "ok", "onnx": "ok", "compile": "ok"}
    assert {"Gemm", "MatMul"} & set(task["onnx"]["op_types"])
    # The weights are inside the ONNX model, not inputs.
    assert task["onnx"]["size_kb"] > 0


def test_recompilation_on_changed_python_state_is_recorded(tasks: dict[str, Task]) -> None:
    compiled = tasks["recompiles"]["compile"]
    assert compiled["status"] == "ok-unverified"
    assert compiled["recompiled"] is True
    assert "_calls" in compiled["recompile_reason"]
    for name in ("plain_sin", "branch_on_value", "chatty"):
        assert tasks[name]["compile"]["recompiled"] is False, name


def test_a_skipped_case_records_its_reason(tasks: dict[str, Task]) -> None:
    task = tasks["skipped_op"]
    assert set(task.statuses().values()) == {"skipped"}
    assert task["onnx"]["message"] == "not an operator"
    assert not [m for m in task.messages if m["type"] == "path"]


def test_onnx_alone_lets_the_exporter_choose_and_honours_the_opset(cases: dict[str, Case]) -> None:
    task = Task(cases["plain_sin"], ["onnx"], {"opset": 17})
    # The reference always runs, but only requested paths get a record.
    assert [m["path"] for m in task.messages if m["type"] == "path"] == ["eager", "onnx"]
    assert list(task.records) == ["onnx"]
    onnx = task["onnx"]
    assert onnx["status"] == "ok" and onnx["opset"] == 17
    assert onnx["strategy"] == "non-strict" and onnx["shared_trace"] is False


def test_onnx_registry_is_built_once_and_copied_per_export() -> None:
    from capmap.probes import onnx_runtime
    from torch.onnx._internal.exporter import _registration

    onnx_runtime.reuse_torchlib_registry()
    first = _registration.ONNXRegistry.from_torchlib()
    second = _registration.ONNXRegistry().from_torchlib(opset_version=first.opset_version)
    assert first is not second and first.functions.keys() == second.functions.keys()
    target = next(iter(first.functions))
    first.functions[target].clear()  # what registering a custom translation does to a copy
    assert second.functions[target]


def test_strict_export_setting(cases: dict[str, Case]) -> None:
    task = Task(cases["plain_sin"], ["export"], {"export_strict": True})
    assert task["export"]["status"] == "ok" and task["export"]["strict"] is True


def test_unknown_path_is_a_programming_error(cases: dict[str, Case]) -> None:
    with pytest.raises(ValueError, match="unknown paths"):
        run_task(cases["plain_sin"], ["tflite"], {}, lambda m: None)


def test_end_to_end_through_the_binary_stores_the_same_outcomes(capmap_bin: Path, tmp_path: Path) -> None:
    store = tmp_path / "tmp.db"
    chosen = ["plain_sin", "branch_on_value", "diverges_when_captured", "broken", "noisy"]
    done = subprocess.run(
        [str(capmap_bin), "run", str(CASES_FILE), "--paths", "eager,onnx,export,compile"]
        + ["--store", str(store), "--no-merge"]
        + [arg for name in chosen for arg in ("--only", name)],
        cwd=tmp_path,
        env=python_env(),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    # Exporter and dynamo chatter stays in the task logs.
    for noise in ("[torch.onnx]", "torchvision is not installed", "Graph break"):
        assert noise not in done.stdout + done.stderr
    with sqlite3.connect(store) as db:
        rows = db.execute("SELECT case_name, path, status, record FROM records").fetchall()
    got = {(name, path): (status, json.loads(record)) for name, path, status, record in rows}
    assert {name for name, _ in got} == set(chosen)
    assert got[("plain_sin", "onnx")][0] == "ok"
    assert got[("branch_on_value", "export")][0] == "fail"
    status, record = got[("branch_on_value", "compile")]
    assert status == "ok-breaks" and record["graph_breaks"] == 1
    assert got[("diverges_when_captured", "compile")][1]["max_abs_diff"] == pytest.approx(0.5)
    assert got[("broken", "onnx")][0] == "eager-fail"
    assert got[("noisy", "onnx")][0] == "ok-unverified"


@pytest.mark.parametrize("name", ["mean_of", "sum_of"])
def test_a_scalar_result_stays_0d_through_every_path(tasks: dict[str, Task], name: str) -> None:
    task = tasks[name]
    assert task["eager"]["outputs"] == ["Tensor[] float32"]
    assert task.statuses() == {"eager": "ok", "export": "ok", "onnx": "ok", "compile": "ok"}
    for path in ("export", "onnx", "compile"):
        assert task[path]["max_abs_diff"] < 1e-5, path


@pytest.mark.parametrize("name", ["scalar_and_matrix", "scalar_and_matrix[no-flatten]"])
def test_a_tuple_of_a_scalar_and_a_matrix_keeps_both_shapes(tasks: dict[str, Task], name: str) -> None:
    task = tasks[name]
    assert task["eager"]["outputs"] == ["Tensor[] float32", "Tensor[2,3] float32"]
    assert task.statuses() == {"eager": "ok", "export": "ok", "onnx": "ok", "compile": "ok"}
    # Plain tensors: nothing to open, nothing said.
    assert all("flattened" not in record for record in task.records.values())


# Run in a process of its own: the descriptor limit it sets would reach pytest's threads.
NO_DESCRIPTOR_LEFT = """
import os, resource
from capmap.probes.process_plumbing import captured_output

def open_fds():  # fstat opens nothing, unlike a listing of /proc/self/fd
    found = set()
    for fd in range(1024):
        try:
            os.fstat(fd)
        except OSError:
            continue
        found.add(fd)
    return found

def lowest_free(opened, count):
    free, n = [], 0
    while len(free) < count:
        if n not in opened:
            free.append(n)
        n += 1
    return free

soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
for room in (1, 2):  # room for the temporary file only, then for it and one copy
    before = open_fds()
    resource.setrlimit(resource.RLIMIT_NOFILE, (lowest_free(before, room + 1)[-1], hard))
    try:
        with captured_output({}):
            raise SystemExit(f"room {room}: captured_output should have run out of descriptors")
    except OSError as exc:
        assert exc.errno == 24, exc
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    assert open_fds() == before, (room, sorted(open_fds() - before))
print("no descriptor left open")
"""


def test_output_capture_that_cannot_start_leaves_no_descriptor_open() -> None:
    done = subprocess.run(
        ["python3", "-c", NO_DESCRIPTOR_LEFT], capture_output=True, text=True, env=python_env(), check=False
    )
    assert done.returncode == 0 and "no descriptor left open" in done.stdout, done.stderr[-2000:]

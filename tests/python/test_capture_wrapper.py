"""The capture wrapper on library-like containers: real torch.export, ONNX Runtime and inductor.

Every case of tests/python/registries/container_cases.py runs once through all four paths (a
module-scoped fixture); the tests read the records as the supervisor would.
"""

from __future__ import annotations

import collections
import json
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from capmap import registry
from capmap.capture import flat_case, flatten_output, plan_inputs
from capmap.cases import Case
from capmap.probes.task import run_task
from capmap_testing import python_env, records

HERE = Path(__file__).resolve().parent
CASES_FILE = HERE / "registries" / "container_cases.py"
pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning", "ignore::DeprecationWarning")

ALL_PATHS = ["eager", "onnx", "export", "compile"]
CAPTURE_PATHS = ["export", "onnx", "compile"]


def probe(c: Case, settings: dict[str, Any] | None = None) -> dict[str, dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    run_task(c, ALL_PATHS, settings or {}, messages.append)
    json.dumps(messages)  # everything must travel as JSON
    return {m["path"]: m["record"] for m in messages if m["type"] == "record"}


@pytest.fixture(scope="module")
def cases() -> dict[str, Case]:
    return registry.load([str(CASES_FILE)]).by_name()


@pytest.fixture(scope="module")
def tasks(cases: dict[str, Case]) -> dict[str, dict[str, dict[str, Any]]]:
    return {name: probe(c) for name, c in cases.items()}


def statuses(task: dict[str, dict[str, Any]]) -> dict[str, str]:
    return {p: r["status"] for p, r in task.items()}


EVERY_PATH_OK = {"eager": "ok", "export": "ok", "onnx": "ok", "compile": "ok"}


def test_a_tensor_wrapper_input_becomes_its_tensor(tasks: dict[str, Any]) -> None:
    task = tasks["norms"]
    assert statuses(task) == EVERY_PATH_OK
    for path in ALL_PATHS:
        assert task[path]["flattened"] == ["input Points → 1 tensor"], path
    assert task["onnx"]["max_abs_diff"] < 1e-5


def test_without_flattening_the_exporters_meet_the_container(tasks: dict[str, Any]) -> None:
    task = tasks["norms[no-flatten]"]
    assert task["export"]["status"] == "fail" and task["onnx"]["status"] == "export-fail"
    assert "Unsupported input type" in task["export"]["message"]
    assert task["compile"]["status"] == "ok"
    assert all("flattened" not in record for record in task.values())


def test_the_run_setting_turns_flattening_off_for_every_case(cases: dict[str, Case]) -> None:
    task = probe(cases["segment_between"], {"flatten": False})
    assert task["export"]["status"] == "fail" and "Unsupported input type" in task["export"]["message"]
    assert all("flattened" not in record for record in task.values())


def test_object_inputs_and_an_object_result_are_described_once(tasks: dict[str, Any]) -> None:
    task = tasks["segment_between"]
    assert statuses(task) == EVERY_PATH_OK
    assert task["eager"]["flattened"] == ["input Points → 1 tensor (×2)", "output Segment → 2 tensors"]
    # The label string of the result is no tensor: two outputs, compared on every path.
    assert task["eager"]["outputs"] == ["Tensor[4,3] float32"] * 2
    assert all(task[p]["max_abs_diff"] < 1e-5 for p in CAPTURE_PATHS)


def test_a_dataclass_result(tasks: dict[str, Any]) -> None:
    task = tasks["fit"]
    assert statuses(task) == EVERY_PATH_OK
    assert task["export"]["flattened"] == ["output Fit → 2 tensors"]


def test_an_nn_module_input_rebuilt_around_its_parameters(tasks: dict[str, Any]) -> None:
    task = tasks["plane_distance"]
    assert statuses(task) == EVERY_PATH_OK
    assert task["onnx"]["flattened"] == ["input Plane → 2 tensors"]
    # A method of a data module (no forward of its own): its object is opened, so the plane's
    # tensors reach the graph as inputs, as in a user's wrapper that takes the plane.
    task = tasks["Plane.distance"]
    assert statuses(task) == EVERY_PATH_OK
    assert task["export"]["flattened"] == ["receiver Plane → 2 tensors"]
    assert task["export"]["graph_inputs"] == 3 and task["onnx"]["graph_inputs"] == 3
    assert "Mul" in task["onnx"]["op_types"]


def test_a_network_argument_keeps_its_weights_as_parameters(tasks: dict[str, Any]) -> None:
    task = tasks["through"]
    assert statuses(task) == EVERY_PATH_OK
    # Only x is a graph input: the Linear's weight and bias are the graph's own, as in a user's export.
    assert task["export"]["graph_inputs"] == 1 and task["onnx"]["graph_inputs"] == 1
    assert "flattened" not in task["export"]


def test_a_capture_without_graph_inputs_is_constant_on_every_path(tasks: dict[str, Any]) -> None:
    task = tasks["box_kernel"]
    assert task["eager"]["status"] == "ok"
    for path in CAPTURE_PATHS:
        assert task[path]["status"] == "constant", path
        assert task[path]["message"] == "captured as a constant: no input reaches the graph"
        assert task[path]["captured_status"] == "ok"
    assert task["onnx"]["graph_inputs"] == 0 and task["export"]["graph_inputs"] == 0
    declared = tasks["box_kernel[declared]"]
    assert {declared[p]["status"] for p in CAPTURE_PATHS} == {"constant"}
    assert declared["onnx"]["message"].endswith("(expected: a kernel made from its size)")


def test_an_onnx_graph_that_computes_nothing_from_its_inputs_is_constant(tasks: dict[str, Any]) -> None:
    folded = tasks["identity_like"]["onnx"]
    assert folded["graph_inputs"] == 1 and folded["graph_nodes"] == 0 and folded["outputs_constant"]
    assert folded["status"] == "constant" and folded["captured_status"] == "ok"
    assert folded["message"].endswith("the graph takes its inputs but computes nothing from them")
    # A no-op conversion passes its input through (an Identity node): that is a capture.
    passed = tasks["same_dtype"]["onnx"]
    assert "outputs_constant" not in passed and passed["status"] == "ok"


def test_every_path_starts_from_the_state_eager_started_from(
    cases: dict[str, Case], tasks: dict[str, Any]
) -> None:
    # The counter's buffer and its list would carry each call into the next path's result.
    task = tasks["Counter"]
    assert statuses(task) == EVERY_PATH_OK
    assert all(task[p]["max_abs_diff"] == 0.0 for p in CAPTURE_PATHS)
    counter = cases["Counter"].target
    assert float(counter.calls) == 0.0 and counter.seen == []


def test_an_array_input_makes_every_capture_constant(tasks: dict[str, Any]) -> None:
    task = tasks["doubled_array"]
    for path in CAPTURE_PATHS:
        assert task[path]["status"] == "constant", path
        assert "no capture path traces an ndarray" in task[path]["message"]


def test_an_nn_module_result_is_its_parameters(tasks: dict[str, Any]) -> None:
    task = tasks["plane_through_origin"]
    # Building an nn.Parameter inside a compiled function is a graph break of its own.
    assert statuses(task) == {**EVERY_PATH_OK, "compile": "ok-breaks"}
    assert all(task[p]["max_abs_diff"] < 1e-5 for p in CAPTURE_PATHS)
    assert task["eager"]["outputs"] == ["Tensor[3] float32", "Tensor[1] float32"]
    assert task["onnx"]["flattened"] == ["output Plane → 2 tensors"]


def test_a_container_that_does_not_take_its_items_back_is_kept_whole() -> None:
    odd = collections.defaultdict(list, {"a": torch.ones(2)})
    plan = plan_inputs([odd, torch.zeros(1)])
    assert len(plan.tensors) == 1 and plan.tensors[0].shape == (1,)
    (line,) = plan.notes
    assert line.startswith("input defaultdict kept whole, cannot be rebuilt (TypeError")
    kept, fresh = plan.rebuild(plan.fresh_tensors())
    assert kept is odd and fresh.shape == (1,)


def test_a_method_returning_a_container(tasks: dict[str, Any]) -> None:
    task = tasks["Points.shifted"]
    assert statuses(task) == EVERY_PATH_OK
    assert task["compile"]["flattened"] == ["receiver Points → 1 tensor", "output Points → 1 tensor"]
    assert task["export"]["graph_inputs"] == 2


def test_a_class_compiles_as_its_constructor_and_stays_a_plain_class(
    cases: dict[str, Case], tasks: dict[str, Any]
) -> None:
    task = tasks["Points"]
    assert statuses(task) == EVERY_PATH_OK
    assert task["compile"]["flattened"] == ["output Points → 1 tensor"]
    # torch.compile(cls) would have given the class a compiled __call__.
    assert "__call__" not in vars(cases["Points"].target)


def test_a_method_that_changes_its_object_starts_every_path_from_the_same_state(
    cases: dict[str, Case], tasks: dict[str, Any]
) -> None:
    task = tasks["Points.scale_"]
    assert statuses(task) == EVERY_PATH_OK
    # The receiver is a graph input, and its state after the call is compared as well: here it
    # is the result itself, returned once (an ONNX graph cannot name one output twice).
    assert task["export"]["flattened"] == [
        "receiver Points → 1 tensor",
        "receiver Points changed by the call: its tensors are compared too",
        "output Points → 1 tensor",
    ]
    assert task["export"]["graph_inputs"] == 1 and task["onnx"]["graph_inputs"] == 1
    assert task["eager"]["outputs"] == ["Tensor[4,3] float32"]
    # After every path ran, the registry's object holds real tensors again, as it was.
    points = cases["Points.scale_"].target
    assert type(points.data) is torch.Tensor
    torch.testing.assert_close(points.data, torch.randn(4, 3, generator=torch.Generator().manual_seed(0)))


def test_an_object_that_cannot_be_rebuilt_is_kept_whole_and_said_so(tasks: dict[str, Any]) -> None:
    task = tasks["weighted"]
    assert statuses(task) == EVERY_PATH_OK
    (line,) = task["export"]["flattened"]
    assert line.startswith("input Sealed kept whole, cannot be rebuilt")
    assert "Sealed objects cannot be copied" in line and "1 tensor baked into the graph" in line


def test_the_wrapper_takes_only_tensors(cases: dict[str, Case]) -> None:
    flat = flat_case(cases["segment_between"])
    inputs = flat.plan.fresh_tensors()
    assert len(inputs) == 2 and all(type(t) is torch.Tensor for t in inputs)
    program = torch.export.export(flat.module, inputs)
    placeholders = [n for n in program.graph.nodes if n.op == "placeholder"]
    assert len(placeholders) == 2
    out = program.module()(*inputs)
    assert isinstance(out, tuple) and len(out) == 2
    torch.testing.assert_close(out[1], inputs[1] * 2.0)


def test_rebuilt_inputs_are_copies_around_the_new_tensors(cases: dict[str, Case]) -> None:
    original = cases["plane_distance"].inputs[0]
    plan = plan_inputs(cases["plane_distance"].inputs)
    fresh = plan.fresh_tensors()
    plane, points = plan.rebuild(fresh)
    assert type(plane) is type(original) and plane is not original
    assert plane.normal is fresh[0] and plane.offset is fresh[1] and points is fresh[2]
    # The template keeps its own parameters.
    assert isinstance(original.normal, torch.nn.Parameter) and original.normal is not fresh[0]


def test_an_array_input_is_a_constant_and_said_so() -> None:
    plan = plan_inputs([np.zeros((2, 3)), torch.ones(1)])
    assert len(plan.tensors) == 1
    assert plan.notes == ["input ndarray[2, 3] baked into the graph: not a tensor"]


def test_one_tensor_shared_by_two_inputs_is_one_graph_input() -> None:
    x = torch.ones(2)
    plan = plan_inputs([x, [x, 3]])
    assert len(plan.tensors) == 1
    y = torch.zeros(2)
    first, (second, three) = plan.rebuild([y])
    assert first is y and second is y and three == 3


def test_output_flattening_walks_pytrees_and_named_tuples() -> None:
    pair = torch.return_types.max((torch.ones(2), torch.zeros(2, dtype=torch.long)))
    notes: list[str] = []
    found = flatten_output({"a": (torch.ones(1), [pair]), "b": "text", "c": None}, notes)
    assert [t.shape for t in found] == [torch.Size([1]), torch.Size([2]), torch.Size([2])]
    assert notes == []  # pytrees are no library objects


def test_end_to_end_the_store_keeps_flattened_and_the_setting_keys_the_run(
    capmap_bin: Path, tmp_path: Path
) -> None:
    store = tmp_path / "c.db"

    def run(*extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(capmap_bin), "run", str(CASES_FILE), "--paths", "eager,export", "--only", "norms"]
            + ["--store", str(store), "--no-merge", *extra],
            cwd=tmp_path,
            env=python_env(),
            capture_output=True,
            text=True,
            timeout=600,
        )

    done = run()
    assert done.returncode == 0, done.stderr[-2000:]
    stored = records(store)
    assert stored[("norms", "export")]["status"] == "ok"
    assert stored[("norms", "export")]["flattened"] == ["input Points → 1 tensor"]
    done = run("--no-flatten")
    assert done.returncode == 0, done.stderr[-2000:]
    with sqlite3.connect(store) as db:
        runs = dict(db.execute("SELECT run_key, info FROM runs").fetchall())
        rows = db.execute(
            "SELECT run_key, status FROM records WHERE path = 'export' AND case_name = 'norms'"
        ).fetchall()
    assert len(runs) == 2
    settings = {key: json.loads(info)["settings"] for key, info in runs.items()}
    off = [key for key, s in settings.items() if s.get("flatten") is False]
    on = [key for key, s in settings.items() if "flatten" not in s]
    assert len(off) == 1 and len(on) == 1
    assert dict(rows) == {on[0]: "ok", off[0]: "fail"}

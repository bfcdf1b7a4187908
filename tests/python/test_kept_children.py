"""Kept children: a worker's child runs several tasks in a row while each leaves no trace.

Worker level (real pipes): tasks that ask for reuse run in the same child, one at a time, each
with its own log and `done`; a task that rebinds a torch name, leaves a process behind or dies
ends the child, and the next task gets a fresh one. Engine level: a case that dies only because
it shares a process with earlier cases is run again in a fresh child and stored as it is alone.
"""

from __future__ import annotations

import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from capmap_testing import FAULTS, WorkerHarness, processes_naming, python_env, records

EAGER = ["eager"]

# Each case dies in any process that ran a case of this file before it, which only a kept
# child can be: alone, in a fresh child, every one of them is fine.
SHARING_REGISTRY = """\
import ctypes
import os
import torch
from capmap import case

SEEN = []

def crashes_when_shared(x):
    if SEEN:
        ctypes.string_at(0)
    SEEN.append(os.getpid())
    return x * 2

for i in range(6):
    case(f'crashes_when_shared[{i}]', 'share.crash', crashes_when_shared, [torch.ones(2)])
"""


def run_kept(w: WorkerHarness, task: int, case: str, reuse: bool = True) -> list[dict[str, Any]]:
    w.send({"type": "task", "task": task, "case": case, "paths": EAGER, "threads": 1, "reuse": reuse})
    events = []
    while True:
        ev = w.event(120)
        assert ev is not None, w.stderr()[-2000:]
        events.append(ev)
        if ev["type"] == "done":
            return events


def run_after_a_kept_task(w: WorkerHarness, case: str) -> tuple[int, list[dict[str, Any]]]:
    """Runs a clean task, then `case` in the child it kept; `case` itself must come out ok."""
    kept = run_kept(w, 1, "relu")[0]["pid"]
    events = run_kept(w, 2, case)
    assert events[0]["pid"] == kept
    assert events[-2]["record"]["status"] == "ok", events[-2]
    return kept, events


@pytest.fixture
def fault_worker_kept(tmp_path: Path) -> Iterator[tuple[WorkerHarness, Path]]:
    registry = tmp_path / f"faults_{uuid.uuid4().hex[:12]}" / "faults.py"
    registry.parent.mkdir()
    registry.write_text(FAULTS.read_text())
    w = WorkerHarness([registry])
    assert w.event()["type"] == "hello", w.stderr()[-2000:]
    yield w, registry
    w.close()


def test_tasks_that_leave_no_trace_share_one_child(fault_worker_kept: tuple[WorkerHarness, Path]) -> None:
    w, _ = fault_worker_kept
    first = run_kept(w, 1, "relu")
    second = run_kept(w, 2, "add_one[a]")
    third = run_kept(w, 3, "add_tensors")
    pids = [events[0]["pid"] for events in (first, second, third)]
    assert pids[0] == pids[1] == pids[2] != w.proc.pid
    for n, events in enumerate((first, second, third)):
        assert [e["type"] for e in events] == ["started", "path", "record", "done"]
        assert events[-2]["record"]["status"] == "ok"
        done = events[-1]
        assert done["exit"] == 0 and done["kept"] is True
        assert done.get("earlier_tasks", 0) == n
    # Without reuse the worker forks as before.
    assert run_kept(w, 4, "relu", reuse=False)[0]["pid"] != pids[0]


def test_a_task_that_rebinds_a_torch_name_ends_its_child(
    fault_worker_kept: tuple[WorkerHarness, Path],
) -> None:
    w, _ = fault_worker_kept
    kept, poisoned = run_after_a_kept_task(w, "poison")
    assert "kept" not in poisoned[-1] and poisoned[-1]["exit"] == 0
    assert "takes no further task: the task changed torch.add" in poisoned[-1]["log_tail"]
    after = run_kept(w, 3, "add_one[a]")
    assert after[0]["pid"] != kept
    assert after[-2]["record"]["status"] == "ok", after[-2]


def test_a_task_that_leaves_a_process_ends_its_child_and_the_process(
    fault_worker_kept: tuple[WorkerHarness, Path],
) -> None:
    w, registry = fault_worker_kept
    _, orphan = run_after_a_kept_task(w, "orphan")
    assert "the task left a process running" in orphan[-1]["log_tail"]
    assert processes_naming(registry) == [w.proc.pid]


def test_a_kept_child_that_dies_says_how_many_tasks_it_ran_before(
    fault_worker_kept: tuple[WorkerHarness, Path],
) -> None:
    w, _ = fault_worker_kept
    run_kept(w, 1, "relu")
    run_kept(w, 2, "relu")
    died = run_kept(w, 3, "segfault")[-1]
    assert died["signal"] == "SIGSEGV" and died["earlier_tasks"] == 2
    assert "segfault" in died["log_tail"]
    fresh = run_kept(w, 4, "relu")[-1]
    assert fresh["kept"] is True and fresh.get("earlier_tasks", 0) == 0


def test_a_death_owed_to_earlier_tasks_is_rerun_in_a_fresh_child(capmap_bin: Path, tmp_path: Path) -> None:
    registry = tmp_path / "sharing.py"
    registry.write_text(SHARING_REGISTRY)
    store = tmp_path / "store.db"
    argv = [str(capmap_bin), "run", str(registry), "--store", str(store), "--all", "--paths", "eager"]
    result = subprocess.run(
        [*argv, "--jobs", "1", "--no-merge"], capture_output=True, text=True, env=python_env(), timeout=300
    )
    assert result.returncode == 0, result.stderr[-3000:]
    got = records(store)
    # Every second task crashed in a kept child, then ran alone in a fresh one: each cell is
    # the case's own. Of six tasks, three met a kept child that had run one before them.
    assert {got[(f"crashes_when_shared[{i}]", "eager")]["status"] for i in range(6)} == {"ok"}
    assert " fresh_reruns=3 " in result.stdout, result.stdout[-2000:]
    # With a fresh child per task nothing is shared, so nothing crashes either.
    fresh_store = tmp_path / "fresh.db"
    again = subprocess.run(
        [*argv[:4], str(fresh_store), *argv[5:], "--jobs", "1", "--no-merge", "--fresh-children"],
        capture_output=True,
        text=True,
        env=python_env(),
        timeout=300,
    )
    assert again.returncode == 0, again.stderr[-3000:]
    assert {records(fresh_store)[(f"crashes_when_shared[{i}]", "eager")]["status"] for i in range(6)} == {
        "ok"
    }
    assert " fresh_reruns=0 " in again.stdout


# Two cases share one registry object: the first changes it in place (a constant handed to the
# call, as kwargs are), the second reads it. Each must see the object as the registry made it.
SHARED_OBJECT_REGISTRY = """\
import torch
from capmap import case

SHARED = torch.ones(3)

def bump(x, shared):
    shared.add_(1.0)
    return x * 2

def read(x):
    if not bool((SHARED == 1).all()):
        raise RuntimeError("an earlier task changed SHARED")
    return x + SHARED

case('bump_shared', 'share.object', bump, [torch.ones(2)], kwargs={'shared': SHARED})
case('read_shared', 'share.object', read, [torch.zeros(3)])
"""


def test_a_task_that_changes_a_registry_object_it_was_handed_ends_its_child(tmp_path: Path) -> None:
    registry = tmp_path / f"shared_{uuid.uuid4().hex[:12]}.py"
    registry.write_text(SHARED_OBJECT_REGISTRY)
    w = WorkerHarness([registry])
    try:
        assert w.event()["type"] == "hello", w.stderr()[-2000:]
        changed = run_kept(w, 1, "bump_shared")
        after = run_kept(w, 2, "read_shared")
        # The child that changed the shared tensor took no further task, so the reader ran in a
        # fresh child and saw the tensor as the registry made it.
        assert after[0]["pid"] != changed[0]["pid"]
        record = [e for e in after if e["type"] == "record"][-1]["record"]
        assert record["status"] == "ok", record
    finally:
        w.close()


def test_the_fingerprint_sees_a_rebound_class_attribute_but_not_an_added_one() -> None:
    from capmap.child_state import objects_fingerprint

    class Thing:
        def method(self) -> int:
            return 1

    thing = Thing()
    before = objects_fingerprint([thing])
    Thing.__slotnames__ = []  # type: ignore[attr-defined]  # what copy.copy caches on a class
    assert before == objects_fingerprint([thing])
    Thing.method = lambda self: 2  # type: ignore[method-assign]
    assert before != objects_fingerprint([thing])

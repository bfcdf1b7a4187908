"""`capmap run` on the fault registry: every fault ends in its own record, every other case in ok.

One run of the real binary serves every test here (it is the slow part); each test reads the
store it left behind.
"""

from __future__ import annotations

import shutil
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from capmap_testing import FAULTS, processes_naming, records, run_capmap, wait_until_gone

TIMEOUT_S = 8
MEMORY_LIMIT = "400M"
MEMORY_LIMIT_BYTES = 400 << 20
ORDINARY = ["add_one[a]", "add_one[b]", "add_tensors", "relu", "poison", "orphan", "flood"]


@dataclass
class FaultRun:
    registry: Path
    store: Path
    returncode: int
    stdout: str
    stderr: str
    records: dict[tuple[str, str], dict[str, Any]]


@pytest.fixture(scope="module")
def fault_run(capmap_bin: Path, tmp_path_factory: pytest.TempPathFactory) -> FaultRun:
    folder = tmp_path_factory.mktemp(f"faults_{uuid.uuid4().hex[:12]}")
    registry = folder / "faults.py"
    shutil.copy(FAULTS, registry)
    store = folder / "results.db"
    done = run_capmap(
        capmap_bin,
        "run",
        registry,
        "--paths",
        "eager",
        "--jobs",
        "2",
        "--timeout",
        str(TIMEOUT_S),
        "--memory-limit",
        MEMORY_LIMIT,
        "--store",
        store,
        "--no-merge",
        timeout=600,
    )
    assert done.returncode == 0, f"capmap run failed ({done.returncode}):\n{done.stderr[-3000:]}"
    return FaultRun(registry, store, done.returncode, done.stdout, done.stderr, records(store))


def eager(run: FaultRun, name: str) -> dict[str, Any]:
    assert (name, "eager") in run.records, f"{name} has no eager record; stderr:\n{run.stderr[-2000:]}"
    return run.records[(name, "eager")]


def test_every_case_has_exactly_one_record(fault_run: FaultRun) -> None:
    from capmap_testing import query

    rows = query(fault_run.store, "SELECT case_name, COUNT(*) FROM records GROUP BY case_name")
    counts = dict(rows)
    cases = {name for (name,) in query(fault_run.store, "SELECT name FROM cases")}
    assert len(cases) == 15
    assert counts == {name: 1 for name in cases}


@pytest.mark.parametrize(("name", "signal"), [("segfault", "SIGSEGV"), ("abort", "SIGABRT")])
def test_a_case_killed_by_a_signal_is_crashed_with_its_name(
    fault_run: FaultRun, name: str, signal: str
) -> None:
    record = eager(fault_run, name)
    assert record["status"] == "crashed"
    assert record["signal"] == signal
    assert signal in record["message"]


def test_a_case_that_exits_is_crashed_with_its_exit_code(fault_run: FaultRun) -> None:
    record = eager(fault_run, "exit3")
    assert record["status"] == "crashed" and record["exit"] == 3 and "signal" not in record


def test_a_case_that_never_returns_times_out(fault_run: FaultRun) -> None:
    record = eager(fault_run, "spin")
    assert record["status"] == "timeout"
    assert record["limit_seconds"] == TIMEOUT_S
    # Killed at the limit: the bound only catches a kill that never came (ten limits).
    assert TIMEOUT_S <= record["seconds"] < TIMEOUT_S * 10


def test_a_case_that_allocates_without_bound_is_oom(fault_run: FaultRun) -> None:
    record = eager(fault_run, "hog")
    assert record["status"] == "oom"
    assert record["limit_bytes"] == MEMORY_LIMIT_BYTES
    assert record["rss_bytes"] > MEMORY_LIMIT_BYTES
    # Killed near the limit, long before the hog's own safety cap.
    assert record["rss_bytes"] < 3 << 30


def test_a_case_whose_eager_run_raises_fails_with_the_error(fault_run: FaultRun) -> None:
    record = eager(fault_run, "raises")
    assert record["status"] == "fail"
    assert record["error_type"] == "ValueError"
    assert "fails in eager on purpose" in record["message"]


@pytest.mark.parametrize("name", ORDINARY)
def test_ordinary_cases_pass_around_the_faults(fault_run: FaultRun, name: str) -> None:
    record = eager(fault_run, name)
    assert record["status"] == "ok", record
    assert record["outputs"] == ["Tensor[3,4] float32"]


def test_a_flood_of_output_keeps_only_its_tail(fault_run: FaultRun) -> None:
    record = eager(fault_run, "flood")
    assert "flood-finished" in record["log_tail"]
    assert len(record["log_tail"].encode()) <= 4096 + 4


def test_a_skipped_case_is_stored_with_its_reason(fault_run: FaultRun) -> None:
    record = eager(fault_run, "skipped")
    assert record["status"] == "skipped"
    assert "listed, never run" in record.get("message", "") + record.get("reason", "")


def test_nothing_a_case_started_outlives_the_run(fault_run: FaultRun) -> None:
    # The orphan case leaves a sleeping process behind, and the hog and spinner were killed:
    # none of them, and no worker, may remain.
    survivors = wait_until_gone(fault_run.registry, 10.0)
    assert survivors == [], [
        Path(f"/proc/{pid}/cmdline").read_bytes() for pid in processes_naming(fault_run.registry)
    ]


def test_a_crash_in_one_path_leaves_the_next_paths_their_records(
    capmap_bin: Path, fault_registry: Path
) -> None:
    store = fault_registry.with_name("capture.db")
    done = run_capmap(
        capmap_bin, "run", fault_registry, "--only", "crash_once_when_exporting",
        "--paths", "eager,export,onnx", "--jobs", "1", "--store", store, "--no-merge", timeout=240,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    found = records(store)
    assert found[("crash_once_when_exporting", "eager")]["status"] == "ok"
    crashed = found[("crash_once_when_exporting", "export")]
    assert crashed["status"] == "crashed" and crashed["signal"] == "SIGSEGV"
    # The ONNX path ran in a fresh child after the crash and could export the case.
    assert found[("crash_once_when_exporting", "onnx")]["status"] == "ok"

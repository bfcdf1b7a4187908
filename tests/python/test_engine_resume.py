"""The supervisor killed with SIGKILL: its processes go with it, and the next run resumes."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections import Counter
from pathlib import Path

from capmap_testing import kill_all, processes_naming, python_env, query, records, run_capmap, wait_until_gone

SLOW_CASES = 8

# Each case notes that it started, in a file beside the registry, then takes a while.
SLOW_REGISTRY = """\
import time
from pathlib import Path

import torch

from capmap import case

RAN = Path(__file__).with_name("ran.txt")


def slow(x, tag):
    with RAN.open("a") as f:
        f.write(tag + "\\n")
    time.sleep(0.4)
    return x + 1


def forever(x):
    time.sleep(3600)
    return x


for i in range({count}):
    case(f"slow[{{i}}]", "slow.sleep", slow, [torch.zeros(2)], {{"tag": f"slow[{{i}}]"}})
case("forever", "hang.sleep", forever, [torch.zeros(2)])
"""


def write_slow_registry(folder: Path) -> Path:
    registry = folder / "slow_registry.py"
    registry.write_text(SLOW_REGISTRY.format(count=SLOW_CASES))
    return registry


def start_run(binary: Path, registry: Path, store: Path, *args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [str(binary), "run", str(registry), "--paths", "eager", "--store", str(store), "--no-merge", *args],
        env=python_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def wait_for(condition, seconds: float, what: str) -> None:  # noqa: ANN001 - a predicate
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def record_count(store: Path) -> int:
    if not store.exists():
        return 0
    try:
        return query(store, "SELECT COUNT(*) FROM records")[0][0]
    except Exception:  # noqa: BLE001 - the store may not have its tables yet
        return 0


def kill_supervisor_and_check_cleanup(run: subprocess.Popen[bytes], marker: Path) -> None:
    os.kill(run.pid, signal.SIGKILL)
    run.wait(timeout=60)
    survivors = wait_until_gone(marker, 10.0)
    kill_all(survivors)
    assert survivors == [], "workers or children outlived the supervisor by more than 2 s"


def test_kill_9_mid_run_then_resume_records_every_task_once(capmap_bin: Path, tmp_path: Path) -> None:
    registry = write_slow_registry(tmp_path)
    store = tmp_path / "results.db"
    first = start_run(capmap_bin, registry, store, "--jobs", "2", "--only", "slow")
    try:
        wait_for(lambda: record_count(store) >= 3, 90, "three records from the first run")
    finally:
        kill_supervisor_and_check_cleanup(first, registry)
    kept = {row[0]: row[1:] for row in query(store, "SELECT case_name, record, created FROM records")}
    assert 3 <= len(kept) < SLOW_CASES

    second = run_capmap(capmap_bin, "run", registry, "--paths", "eager", "--store", store, "--no-merge",
                        "--jobs", "2", "--only", "slow")  # fmt: skip
    assert second.returncode == 0, second.stderr

    rows = query(store, "SELECT case_name, path, COUNT(*) FROM records GROUP BY case_name, path")
    assert sorted(rows) == sorted((f"slow[{i}]", "eager", 1) for i in range(SLOW_CASES))
    assert all(r["status"] == "ok" for r in records(store).values())
    # What the first run recorded was kept as it was, and those cases did not run again.
    now = {row[0]: row[1:] for row in query(store, "SELECT case_name, record, created FROM records")}
    assert {name: now[name] for name in kept} == kept
    runs = Counter((tmp_path / "ran.txt").read_text().split())
    assert all(runs[name] == 1 for name in kept), runs
    assert set(runs) == {f"slow[{i}]" for i in range(SLOW_CASES)}


def test_a_task_dispatched_twice_without_a_record_is_recorded_as_crashed(
    capmap_bin: Path, tmp_path: Path
) -> None:
    registry = write_slow_registry(tmp_path)
    store = tmp_path / "results.db"
    for _ in range(2):
        run = start_run(capmap_bin, registry, store, "--jobs", "1", "--only", "forever")
        try:
            # The child is running the case once the supervisor, its worker and a child exist.
            wait_for(lambda: len(processes_naming(registry)) >= 3, 90, "the case to start")
        finally:
            kill_supervisor_and_check_cleanup(run, registry)
    assert record_count(store) == 0
    assert query(store, "SELECT attempts FROM dispatches WHERE case_name = 'forever'") == [(2,)]

    third = run_capmap(capmap_bin, "run", registry, "--paths", "eager", "--store", store, "--no-merge",
                       "--jobs", "1", "--only", "forever", "--timeout", "30")  # fmt: skip
    assert third.returncode == 0, third.stderr
    record = records(store)[("forever", "eager")]
    assert record["status"] == "crashed"


def test_ctrl_c_stops_cleanly_keeps_records_and_exits_130(capmap_bin: Path, tmp_path: Path) -> None:
    registry = write_slow_registry(tmp_path)
    store = tmp_path / "results.db"
    run = start_run(capmap_bin, registry, store, "--jobs", "2", "--only", "slow")
    try:
        wait_for(lambda: record_count(store) >= 2, 90, "two records before Ctrl-C")
        os.kill(run.pid, signal.SIGINT)
        assert run.wait(timeout=60) == 130
    finally:
        if run.poll() is None:
            run.kill()
    assert wait_until_gone(registry, 10.0) == [], "Ctrl-C left workers or children running"
    kept = record_count(store)
    assert 2 <= kept < SLOW_CASES
    # The interrupted run's tasks are not blamed: the next run finishes them all as ok.
    again = run_capmap(capmap_bin, "run", registry, "--paths", "eager", "--store", store, "--no-merge",
                       "--jobs", "2", "--only", "slow")  # fmt: skip
    assert again.returncode == 0, again.stderr
    statuses = [r["status"] for r in records(store).values()]
    assert statuses == ["ok"] * SLOW_CASES

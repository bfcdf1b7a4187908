"""One store, two runs: the second `capmap run` on a store another run writes is refused with one
line naming that run, and runs nothing; a merge during the run reads a consistent store."""

from __future__ import annotations

import json
import subprocess
import time
from collections import Counter
from pathlib import Path

from capmap_testing import python_env, query, run_capmap

CASES = 6

# Each case notes that it ran, in a file beside the registry, then takes a while.
REGISTRY = """\
import time
from pathlib import Path

import torch

from capmap import case

RAN = Path(__file__).with_name("ran.txt")


def slow(x, tag):
    with RAN.open("a") as f:
        f.write(tag + "\\n")
    time.sleep(0.5)
    return x + 1


for i in range({count}):
    case(f"slow[{{i}}]", "slow.sleep", slow, [torch.zeros(2)], {{"tag": f"slow[{{i}}]"}})
"""


def record_count(store: Path) -> int:
    try:
        return query(store, "SELECT COUNT(*) FROM records")[0][0]
    except Exception:  # noqa: BLE001 - the store may not have its tables yet
        return 0


def wait_for_records(store: Path, count: int, run: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 120
    while record_count(store) < count:
        assert run.poll() is None, "the first run ended early"
        assert time.monotonic() < deadline, "timed out waiting for the first run's records"
        time.sleep(0.05)


def test_a_second_run_on_a_store_in_use_is_refused_and_runs_nothing(capmap_bin: Path, tmp_path: Path) -> None:
    registry = tmp_path / "slow_registry.py"
    registry.write_text(REGISTRY.format(count=CASES))
    store = tmp_path / "results.db"
    args = ["run", str(registry), "--paths", "eager", "--store", str(store), "--jobs", "1"]
    first = subprocess.Popen(
        [str(capmap_bin), *args, "--no-merge"],
        env=python_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_for_records(store, 1, first)
        second = run_capmap(capmap_bin, *args, "--no-merge")
        assert second.returncode == 2, second.stderr
        lines = second.stderr.strip().splitlines()
        assert len(lines) == 1, second.stderr
        assert lines[0].startswith(f"capmap: {store}: store in use by run {first.pid} since 20"), lines

        # A merge while the run writes reads one consistent state: every record of a case the
        # store lists, the records counted as they were when it looked.
        merged = run_capmap(capmap_bin, "merge", "--store", store, "--out", tmp_path / "mid.json", "--force")
        assert merged.returncode == 0, merged.stderr
        snapshot = json.loads((tmp_path / "mid.json").read_text())
        statuses = [c["paths"]["eager"]["status"] for c in snapshot["cases"]]
        assert len(statuses) == CASES
        assert set(statuses) <= {"ok", "missing"}
        assert 1 <= statuses.count("ok") <= CASES
        assert snapshot["header"]["complete"] is (statuses.count("ok") == CASES)
    finally:
        _, errors = first.communicate(timeout=180)
    assert first.returncode == 0, errors

    # The refused run ran nothing: every case ran once, each (case, path) has one record.
    runs = Counter((tmp_path / "ran.txt").read_text().split())
    assert runs == Counter({f"slow[{i}]": 1 for i in range(CASES)}), runs
    rows = query(store, "SELECT case_name, path, COUNT(*) FROM records GROUP BY case_name, path")
    assert sorted(rows) == sorted((f"slow[{i}]", "eager", 1) for i in range(CASES))

    # The lock went with the first run: a later run on the store finds nothing left to do.
    again = run_capmap(capmap_bin, *args, "--no-merge")
    assert again.returncode == 0, again.stderr
    assert "0 tasks to run" in again.stderr

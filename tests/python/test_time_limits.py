"""The time limit of a path: `--timeout`, and room for a path an earlier record saw end.

A case that sleeps past `--timeout` times out in a fresh store; against a baseline whose record
of the same path ended well under the limit, the same run gives it up to ten times that record's
seconds (at most three limits), so a slower machine does not turn a known capture into a
timeout; a baseline record that timed out itself gives no room.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from capmap_testing import records, run_capmap

TIMEOUT_S = 3
NAP_S = 5

REGISTRY = f"""\
import time

import torch
from capmap import case, library

library("naps")


def nap(x: torch.Tensor) -> torch.Tensor:
    time.sleep({NAP_S})
    return x + 1


case("nap", "naps", nap, (torch.ones(2, 3),))
"""


@pytest.fixture(scope="module")
def registry(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("naps") / "naps.py"
    path.write_text(REGISTRY)
    return path


def run_nap(binary: Path, registry: Path, store: Path, *extra: str | Path) -> dict[str, object]:
    done = run_capmap(binary, "run", registry, "--paths", "eager", "--jobs", "1", "--timeout", str(TIMEOUT_S),
                      "--store", store, *extra, timeout=600)  # fmt: skip
    assert done.returncode in (0, 1), done.stderr
    return records(store)[("nap", "eager")]


def with_eager_seconds(snapshot: Path, seconds: float, status: str, out: Path) -> Path:
    data = json.loads(snapshot.read_text())
    (entry,) = data["cases"]
    entry["paths"]["eager"].update(status=status, seconds=seconds)
    out.write_text(json.dumps(data))
    return out


def test_a_known_path_gets_room_an_unknown_one_does_not(
    capmap_bin: Path, registry: Path, tmp_path: Path
) -> None:
    unknown = run_nap(capmap_bin, registry, tmp_path / "fresh" / "results.db")
    assert unknown["status"] == "timeout"
    assert unknown["limit_seconds"] == TIMEOUT_S
    snapshot = tmp_path / "fresh" / "snapshot.json"

    # Known to end in 1.5 s: room for min(10 x 1.5, 3 x 3) = 9 s, so the 5 s nap ends.
    known = with_eager_seconds(snapshot, 1.5, "ok", tmp_path / "known.json")
    record = run_nap(capmap_bin, registry, tmp_path / "known" / "results.db", "--baseline", known)
    assert record["status"] == "ok", record
    assert float(record["seconds"]) >= NAP_S  # type: ignore[arg-type]

    # Known to end in 0.4 s: room for 4 s only, and the limit it ran under is in the record.
    short = with_eager_seconds(snapshot, 0.4, "ok", tmp_path / "short.json")
    record = run_nap(capmap_bin, registry, tmp_path / "short" / "results.db", "--baseline", short)
    assert record["status"] == "timeout"
    assert record["limit_seconds"] == pytest.approx(4.0)
    assert "time limit of 4 s" in str(record["message"])

    # A baseline that timed out itself says nothing of what the path needs: no room.
    record = run_nap(capmap_bin, registry, tmp_path / "again" / "results.db", "--baseline", snapshot)
    assert record["status"] == "timeout"
    assert record["limit_seconds"] == TIMEOUT_S


def test_diff_tells_a_timeout_of_a_slow_capture_from_a_regression(
    capmap_bin: Path, registry: Path, tmp_path: Path
) -> None:
    # A real timeout at the 3 s limit, against baselines that captured the path in 2.9 s (the
    # limit is under 10 x that: maybe only a slower machine) and in 0.2 s (15 x: the capture).
    run_nap(capmap_bin, registry, tmp_path / "run" / "results.db")
    timed_out = tmp_path / "run" / "snapshot.json"
    for seconds, kind, code in ((2.9, "slow_timeouts", 0), (0.2, "regressions", 1)):
        baseline = with_eager_seconds(timed_out, seconds, "ok", tmp_path / f"ok-{seconds}.json")
        data = json.loads(baseline.read_text())
        data["cases"][0]["paths"]["eager"]["page_status"] = "ok"
        baseline.write_text(json.dumps(data))
        done = run_capmap(
            capmap_bin, "diff", baseline, timed_out, "--format", "json", "--fail-on", "regression"
        )
        assert done.returncode == code, done.stderr
        report = json.loads(done.stdout)
        assert [c["case"] for c in report[kind]] == ["nap"]
        other = "regressions" if kind == "slow_timeouts" else "slow_timeouts"
        assert report["counts"][other] == 0
    assert report["regressions"][0]["new_status"] == "timeout"

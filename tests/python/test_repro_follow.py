"""`capmap run --repro` writes each failure's script while the run goes on, not at its end.

A registry whose failures come quickly while one case holds a job slot until the test releases
it: the scripts of the failures must be there while that case still runs; Ctrl-C and kill -9 of
the supervisor keep them (whole) and leave no writer behind; a resumed run ends with a script
for every failure.
"""

from __future__ import annotations

import ast
import os
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import torch
from capmap_testing import kill_all, python_env, query, records, run_capmap, wait_until_gone

REGISTRY = """\
import time
from pathlib import Path

import torch

from capmap import case

RELEASE = Path(__file__).with_name("release")


def branch_on_value(x):
    # Python control flow on a tensor value: torch.export fails at once.
    if x.sum() > 0:
        return x + 1.0
    return x - 1.0


def held(x):
    # Holds its job slot until the test lets it go, then fails like the others.
    while not RELEASE.exists():
        time.sleep(0.1)
    return branch_on_value(x)


for i in range(3):
    case(f"branch[{i}]", "fails.export", branch_on_value, [torch.ones(2, 3) * (i + 1)])
case("held", "slow.held", held, [torch.ones(2)])
case("plain", "ok.sin", torch.sin, [torch.ones(2)])
"""
QUICK_FAILURES = {"branch_0_.export", "branch_1_.export", "branch_2_.export"}


def start_run(binary: Path, registry: Path, store: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [str(binary), "run", str(registry), "--paths", "export", "--jobs", "2", "--store", str(store)]
        + ["--repro", "--no-merge"],
        env=python_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def wait_for(condition: Callable[[], bool], seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


def scripts(store: Path) -> set[str]:
    return {p.stem for p in (store.parent / "repro").glob("*.py")}


def writer_pids(store: Path) -> list[int]:
    """The script writer: the process running `capmap.repro` for this store."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            cmdline = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"capmap.repro" in cmdline and str(store).encode() in cmdline:
            found.append(int(entry.name))
    return found


def nice_of(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[16])


def assert_whole(store: Path) -> None:
    """Every script parses and its saved inputs load; no half-written file is left."""
    folder = store.parent / "repro"
    for script in folder.glob("*.py"):
        ast.parse(script.read_text())
        if script.with_suffix(".pt").exists():
            torch.load(script.with_suffix(".pt"), weights_only=False)
    assert [p.name for p in folder.iterdir() if p.name.startswith(".")] == []


def run_until_the_failures_have_scripts(binary: Path, folder: Path) -> tuple[subprocess.Popen[bytes], Path]:
    registry = folder / "follow_cases.py"
    registry.write_text(REGISTRY)
    store = folder / "out" / "results.db"
    run = start_run(binary, registry, store)
    try:
        wait_for(lambda: scripts(store) >= QUICK_FAILURES, 600, "the scripts of the quick failures")
        # The run is still going: the held case has no record yet.
        assert run.poll() is None
        assert ("held", "export") not in records(store)
        writers = writer_pids(store)
        assert len(writers) == 1 and nice_of(writers[0]) == 19
    except BaseException:
        run.kill()
        raise
    return run, store


@pytest.fixture(scope="module")
def interrupted(capmap_bin: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run stopped with Ctrl-C after its quick failures got their scripts; returns its store."""
    run, store = run_until_the_failures_have_scripts(capmap_bin, tmp_path_factory.mktemp("follow"))
    os.kill(run.pid, signal.SIGINT)
    try:
        assert run.wait(timeout=120) == 130
    finally:
        if run.poll() is None:
            run.kill()
    return store


def test_scripts_appear_while_the_run_goes_on_and_stay_after_ctrl_c(interrupted: Path) -> None:
    assert scripts(interrupted) == QUICK_FAILURES
    assert_whole(interrupted)
    assert wait_until_gone(str(interrupted), 10.0) == []
    assert writer_pids(interrupted) == []


def test_a_resumed_run_ends_with_a_script_for_every_failure(capmap_bin: Path, interrupted: Path) -> None:
    registry = interrupted.parent.parent / "follow_cases.py"
    (registry.parent / "release").touch()
    done = run_capmap(capmap_bin, "run", registry, "--paths", "export", "--jobs", "2", "--store",
                      interrupted, "--repro", "--no-merge", timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    # The last failure was recorded just before the run ended: the writer's last pass has it.
    assert records(interrupted)[("held", "export")]["status"] == "fail"
    assert scripts(interrupted) == QUICK_FAILURES | {"held.export"}
    assert_whole(interrupted)
    assert "repro scripts of failing cells" in done.stderr
    assert done.stdout.strip().splitlines()[-1].startswith("summary: ")
    assert writer_pids(interrupted) == []


def test_kill_9_of_the_supervisor_keeps_the_scripts_and_ends_the_writer(
    capmap_bin: Path, tmp_path: Path
) -> None:
    run, store = run_until_the_failures_have_scripts(capmap_bin, tmp_path)
    run.send_signal(signal.SIGKILL)
    run.wait(timeout=60)
    # A hang guard, not a speed check: the writer runs at the lowest priority, and beside two
    # CPU-bound processes its exit took 31 s (it gets about 1 % of a core there).
    survivors = wait_until_gone(str(store), 120.0) + wait_until_gone(str(tmp_path / "follow_cases.py"), 10.0)
    kill_all(survivors)
    assert survivors == [], "the script writer or a worker outlived the supervisor"
    assert scripts(store) == QUICK_FAILURES
    assert_whole(store)
    assert query(store, "SELECT COUNT(*) FROM records WHERE status = 'fail'") == [(3,)]

"""When the store's file system refuses, `capmap run` names the cause in one line, keeps the records
written so far and says how to resume: a full disk, a read-only store, a store whose folder
vanished during the run.

The full-disk and read-only cases mount a small tmpfs, so they need root (skipped otherwise)."""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from capmap_testing import REPO, python_env, query, run_capmap

REGISTRY = """\
import time

import torch

from capmap import case


def slow(x):
    time.sleep(0.4)
    return x + 1


for i in range({count}):
    case(f"slow[{{i}}]", "slow.sleep", slow, [torch.zeros(2)])
"""
CASES = 8
SEED_STORE = REPO / "tests" / "fuzz" / "corpus" / "store" / "survey-1.db"


@pytest.fixture
def small_disk(tmp_path: Path):  # noqa: ANN201 - a generator fixture
    """A 4 MiB tmpfs, unmounted afterwards."""
    mount_point = tmp_path / "disk"
    mount_point.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a small file system needs root")
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(mount_point)], check=False
    )
    if mounted.returncode != 0:
        pytest.skip("cannot mount a tmpfs here")
    try:
        yield mount_point
    finally:
        subprocess.run(["umount", "-l", str(mount_point)], check=False)


def write_registry(folder: Path) -> Path:
    registry = folder / "slow_registry.py"
    registry.write_text(REGISTRY.format(count=CASES))
    return registry


def record_count(store: Path) -> int:
    try:
        return query(store, "SELECT COUNT(*) FROM records")[0][0]
    except Exception:  # noqa: BLE001 - the store may not have its tables yet
        return 0


def start_run(binary: Path, registry: Path, store: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [
            str(binary),
            "run",
            str(registry),
            "--paths",
            "eager",
            "--store",
            str(store),
            "--jobs",
            "1",
            "--no-merge",
        ],
        env=python_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_for_records(store: Path, count: int, run: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 120
    while record_count(store) < count:
        assert run.poll() is None, "the run ended early"
        assert time.monotonic() < deadline, "timed out waiting for records"
        time.sleep(0.05)


def fill(folder: Path) -> Path:
    filler = folder / "filler"
    chunk = b"\0" * 65536
    with filler.open("wb") as f:
        try:
            while True:
                f.write(chunk)
                f.flush()
        except OSError as error:
            assert error.errno == errno.ENOSPC
    return filler


def last_line(stderr: str) -> str:
    return stderr.strip().splitlines()[-1]


def test_a_full_disk_is_named_keeps_the_records_and_the_run_resumes(
    capmap_bin: Path, tmp_path: Path, small_disk: Path
) -> None:
    registry = write_registry(tmp_path)
    store = small_disk / "results.db"
    run = start_run(capmap_bin, registry, store)
    try:
        wait_for_records(store, 2, run)
        filler = fill(small_disk)
    finally:
        _, errors = run.communicate(timeout=180)
    assert run.returncode == 2, errors
    line = last_line(errors)
    assert line.startswith(f"capmap: {store}: "), line
    assert f"no space left on the device holding {store}" in line, line
    assert "disk I/O error" not in line
    assert "run the same command again and it resumes where it stopped" in line, line
    kept = record_count(store)
    assert 2 <= kept < CASES

    filler.unlink()
    again = run_capmap(
        capmap_bin, "run", registry, "--paths", "eager", "--store", store, "--no-merge", "--jobs", "1"
    )
    assert again.returncode == 0, again.stderr
    rows = query(store, "SELECT case_name, path, COUNT(*) FROM records GROUP BY case_name, path")
    assert sorted(rows) == sorted((f"slow[{i}]", "eager", 1) for i in range(CASES))


def test_a_read_only_store_is_named_before_any_work(
    capmap_bin: Path, tmp_path: Path, small_disk: Path
) -> None:
    store = small_disk / "results.db"
    shutil.copy(SEED_STORE, store)
    remounted = subprocess.run(["mount", "-o", "remount,ro", str(small_disk)], check=False)
    if remounted.returncode != 0:
        pytest.skip("cannot remount read-only here")
    result = run_capmap(capmap_bin, "run", write_registry(tmp_path), "--paths", "eager", "--store", store)
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"capmap: {store}: "), lines
    assert f"{store} is on a read-only file system" in lines[0], lines
    # Reading still works: merge and causes do not write to a store.
    merged = run_capmap(capmap_bin, "merge", "--store", store, "--out", tmp_path / "s.json", "--force")
    assert merged.returncode == 0, merged.stderr


def test_a_store_whose_folder_vanishes_during_the_run_is_named(capmap_bin: Path, tmp_path: Path) -> None:
    registry = write_registry(tmp_path)
    folder = tmp_path / "out"
    store = folder / "results.db"
    run = start_run(capmap_bin, registry, store)
    try:
        wait_for_records(store, 1, run)
        # At once, as a user's `rm -r` or `mv` looks to the run: rmtree alone removes the store
        # before its folder, and a write between the two rightly names the store instead.
        gone = tmp_path / "removed"
        folder.rename(gone)
        shutil.rmtree(gone)
    finally:
        _, errors = run.communicate(timeout=180)
    assert run.returncode == 2, errors
    line = last_line(errors)
    assert f"the folder {folder} holding the store was removed or moved" in line, line
    assert "run the same command again" in line, line


def test_a_registry_file_that_vanishes_during_the_run(capmap_bin: Path, tmp_path: Path) -> None:
    """The workers imported the registry when they started: the run finishes every case and
    keeps every record. The next run on that store names the missing file in one line, exit 2,
    and leaves the store as it was."""
    registry = write_registry(tmp_path)
    store = tmp_path / "results.db"
    run = start_run(capmap_bin, registry, store)
    try:
        wait_for_records(store, 1, run)
        registry.unlink()
    finally:
        _, errors = run.communicate(timeout=180)
    assert run.returncode == 0, errors
    assert record_count(store) == CASES
    before = store.read_bytes()
    again = run_capmap(capmap_bin, "run", registry, "--paths", "eager", "--store", store, "--no-merge")
    assert again.returncode == 2, again.stderr
    lines = again.stderr.strip().splitlines()
    assert len(lines) == 1 and str(registry) in lines[0], again.stderr
    assert record_count(store) == CASES and store.read_bytes() == before

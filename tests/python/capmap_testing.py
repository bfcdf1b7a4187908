"""Shared helpers for the Python tests: the binary under test, its environment, the store, processes."""

from __future__ import annotations

import contextlib
import json
import os
import select
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
PYTHON_DIR = REPO / "python"
FAULTS = Path(__file__).resolve().parent / "registries" / "faults.py"
EXAMPLE = "capmap.registries.example"


def python_env(**extra: str) -> dict[str, str]:
    """The environment for capmap and its workers: this interpreter, this checkout's package."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(PYTHON_DIR), env.get("PYTHONPATH", "")]))
    env["CAPMAP_PYTHON"] = sys.executable
    env.update(extra)
    return env


@pytest.fixture(scope="session")
def capmap_bin() -> Path:
    """The C++ binary under test. Missing is a failure, never a silent skip."""
    candidates = [os.environ.get("CAPMAP_BIN", ""), str(REPO / "build" / "tests" / "capmap")]
    for candidate in filter(None, candidates):
        if os.access(candidate, os.X_OK):
            return Path(candidate)
    pytest.fail(
        "capmap binary not found: set CAPMAP_BIN or build it with "
        "`cmake -S . -B build/tests -G Ninja && cmake --build build/tests --target capmap`"
    )


def run_capmap(
    binary: Path, *args: str | Path, timeout: float = 600, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(binary), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=python_env(),
        cwd=cwd,
        check=False,
    )


@pytest.fixture
def fault_registry(tmp_path: Path) -> Path:
    """A private copy of the fault registry; its path marks every process started for it."""
    folder = tmp_path / f"faults_{uuid.uuid4().hex[:12]}"
    folder.mkdir()
    target = folder / "faults.py"
    shutil.copy(FAULTS, target)
    return target


def processes_naming(marker: str | Path) -> list[int]:
    """pids of live processes (not zombies) whose command line contains `marker`."""
    needle = str(marker).encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if needle in cmdline and state != "Z":
            found.append(int(entry.name))
    return found


def wait_until_gone(marker: str | Path, seconds: float, spare: tuple[int, ...] = ()) -> list[int]:
    """Waits up to `seconds` for every process naming `marker` (but `spare`) to end; returns
    the survivors."""
    deadline = time.monotonic() + seconds
    while True:
        alive = [pid for pid in processes_naming(marker) if pid not in spare]
        if not alive or time.monotonic() > deadline:
            return alive
        time.sleep(0.05)


def kill_all(pids: list[int]) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def query(store: Path, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    """Reads the store directly, read-only, as a separate SQLite client."""
    with sqlite3.connect(f"file:{store}?mode=ro", uri=True) as db:
        return db.execute(sql, params).fetchall()


def records(store: Path) -> dict[tuple[str, str], dict[str, Any]]:
    """(case, path) → stored record (with its status), for every record in the store."""
    rows = query(store, "SELECT case_name, path, status, record FROM records")
    out = {}
    for name, path, status, record in rows:
        body = json.loads(record) if record else {}
        body.setdefault("status", status)
        out[(name, path)] = body
    return out


class WorkerHarness:
    """A real `python -m capmap.worker` on real pipes, driven the way the supervisor drives it."""

    def __init__(
        self,
        registries: list[str | Path],
        settings: dict[str, Any] | None = None,
        extra_args: list[str] | None = None,
        env: dict[str, str] | None = None,
    ) -> None:
        commands_r, self.commands_w = os.pipe()
        self.events_r, events_w = os.pipe()
        self.stderr_path = Path(os.environ.get("TMPDIR", "/tmp")) / f"capmap-worker-{uuid.uuid4().hex}.log"
        self._stderr = open(self.stderr_path, "wb")

        def channel_fds() -> None:
            os.dup2(commands_r, 3)
            os.dup2(events_w, 4)

        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "capmap.worker",
                "--settings",
                json.dumps(settings or {"opset": 18, "export_strict": False}),
                *(extra_args or []),
                *map(str, registries),
            ],
            env={**python_env(), **(env or {})},
            stdout=self._stderr,
            stderr=self._stderr,
            preexec_fn=channel_fds,
            close_fds=False,
        )
        os.close(commands_r)
        os.close(events_w)
        self._buffer = b""

    def send(self, message: dict[str, Any]) -> None:
        os.write(self.commands_w, json.dumps(message).encode() + b"\n")

    def close_commands(self) -> None:
        if self.commands_w >= 0:
            os.close(self.commands_w)
            self.commands_w = -1

    def event(self, timeout: float = 300) -> dict[str, Any] | None:
        """The next event, or None at end of file. Fails the test after `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                pytest.fail(f"worker sent no event within {timeout}s; stderr: {self.stderr()[-2000:]}")
            ready, _, _ = select.select([self.events_r], [], [], left)
            if not ready:
                continue
            chunk = os.read(self.events_r, 1 << 20)
            if not chunk:
                if self._buffer:
                    pytest.fail(f"worker closed fd 4 in the middle of a line: {self._buffer[:200]!r}")
                return None
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return json.loads(line)

    def run_task(
        self, task: int, case: str, paths: list[str], timeout: float = 600, threads: int = 1
    ) -> list[dict[str, Any]]:
        """Sends one task; returns its events up to and including `done`."""
        self.send({"type": "task", "task": task, "case": case, "paths": paths, "threads": threads})
        events = []
        while True:
            ev = self.event(timeout)
            assert ev is not None, f"worker ended during task {case}; stderr: {self.stderr()[-2000:]}"
            events.append(ev)
            if ev["type"] == "done":
                return events

    def stderr(self) -> str:
        self._stderr.flush()
        return self.stderr_path.read_text(errors="replace")

    def close(self) -> None:
        self.close_commands()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self.events_r)
        self._stderr.close()
        self.stderr_path.unlink(missing_ok=True)


@pytest.fixture
def worker_factory() -> Iterator[Any]:
    started: list[WorkerHarness] = []

    def start(
        registries: list[str | Path],
        settings: dict[str, Any] | None = None,
        extra_args: list[str] | None = None,
        env: dict[str, str] | None = None,
    ) -> WorkerHarness:
        w = WorkerHarness(registries, settings, extra_args, env)
        started.append(w)
        return w

    yield start
    for w in started:
        w.close()


@contextlib.contextmanager
def toy_library(base: Path, package: str, ops: str, registry_text: str) -> Iterator[list[Any]]:
    """The cases of a registry (`registry_text`) over a one-module package `package` (its `ops`
    module holds `ops`) written under `base` and importable while the block runs."""
    from capmap import registry, surveyed_library

    (base / package).mkdir()
    (base / package / "__init__.py").write_text("")
    (base / package / "ops.py").write_text(ops)
    registry_file = base / f"{package}_cases.py"
    registry_file.write_text(registry_text)
    sys.path.insert(0, str(base))
    try:
        yield registry.load([str(registry_file)]).cases
    finally:
        surveyed_library.survey(None)
        sys.path.remove(str(base))
        for name in [n for n in sys.modules if n == package or n.startswith(f"{package}.")]:
            del sys.modules[name]


def registry_digests(
    registry: str, out: Path, env: dict[str, str], against: Path | None = None
) -> tuple[subprocess.CompletedProcess[str], dict[str, str], dict[str, str]]:
    """`scripts/registry_digests.py` over `registry` in a process of its own: the run, then each
    case's digest by recipes and by bytes (empty when it wrote none)."""
    recipes, values = out / "recipes.json", out / "bytes.json"
    out.mkdir(parents=True, exist_ok=True)
    argv = [sys.executable, str(REPO / "scripts" / "registry_digests.py"), registry]
    argv += ["--out", str(recipes), "--bytes-out", str(values)]
    if against is not None:
        argv += ["--against", str(against)]
    done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=600, check=False)
    if not recipes.exists():
        return done, {}, {}
    return done, json.loads(recipes.read_text()), json.loads(values.read_text())


@dataclass
class RegistryDigests:
    """`scripts/registry_digests.py` over the bundled Kornia registry on this machine as is,
    compared with the published survey's input digests (`--against`)."""

    done: subprocess.CompletedProcess[str]
    recipes: dict[str, str]
    values: dict[str, str]
    published_cases: int

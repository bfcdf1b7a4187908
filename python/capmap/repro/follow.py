"""Repro scripts written while a run records its failures (`capmap run --repro`).

`python -m capmap.repro --all --follow --store DB --run-key KEY` reads the store every few
seconds, read-only (the store is in WAL mode: a reader never blocks the supervisor), and writes
the script of every failing capture record it has not written yet. The supervisor sends it
nothing, so a run pays no supervisor CPU for its scripts; `capmap run` starts it at the lowest
CPU priority and gives it a pipe as stdin, which it closes when the run is over: then the writer
reads the store once more, writes what is left and exits. SIGTERM stops it at once, without
Python's shutdown; every script appears whole or not at all (see `write_script`), so what was
written stays usable. The registry and the probed library are loaded only when the first failure
shows up: a run without one costs the writer a query every few seconds.
"""

from __future__ import annotations

import os
import select
import signal
import sqlite3
import sys
from collections.abc import Callable
from pathlib import Path
from types import FrameType

from capmap.cases import Case, RegistryError
from capmap.repro.cells import Cell, RunInfo, case_cells, failing_keys, open_store, run_info

POLL_SECONDS = 2.0


class ScriptWriter:
    """Writes the scripts of failing cells into one folder, loading the cases once, when needed."""

    def __init__(self, run: RunInfo, specs: list[str], folder: Path) -> None:
        self.run = run
        self.specs = specs
        self.folder = folder
        self.written = 0
        self._cases: dict[str, Case] | None = None

    def write(self, cell: Cell) -> bool:
        """Writes `cell`'s script; a cell whose script cannot be made gets one line on stderr."""
        from capmap.repro.script import file_stem, write_script

        case = self._load().get(cell.case)
        if case is None:
            print(f"repro: {cell.key}: case not in {', '.join(self.specs)}; no script", file=sys.stderr)
            return False
        try:
            write_script(case, cell, self.run, self.folder / f"{file_stem(cell.case, cell.path)}.py")
        except Exception as exc:  # noqa: BLE001 - one cell's problem must not cost the others theirs
            print(f"repro: {cell.key}: no script ({type(exc).__name__}: {exc})", file=sys.stderr)
            return False
        self.written += 1
        return True

    def _load(self) -> dict[str, Case]:
        if self._cases is None:
            from capmap import registry

            self._cases = registry.load(self.specs).by_name()
        return self._cases


def remove_stale_temp_files(folder: Path) -> None:
    """Temp files of writers that were killed before they could remove them (SIGKILL)."""
    from capmap.repro.script import TEMP_SUFFIX

    if not folder.is_dir():
        return
    for tmp in folder.glob(f".*{TEMP_SUFFIX}"):
        pid = tmp.name[: -len(TEMP_SUFFIX)].rsplit(".", 1)[-1]
        if pid.isdigit() and int(pid) != os.getpid() and not _alive(int(pid)):
            tmp.unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _run_over(control: int, seconds: float) -> bool:
    """Waits up to `seconds` for the end of the run: end of file (or an error) on `control`."""
    ready, _, _ = select.select([control], [], [], seconds)
    if not ready:
        return False
    try:
        data = os.read(control, 4096)
    except OSError:
        return True
    return not data


def _stopper(folder: Path) -> Callable[[int, FrameType | None], None]:
    """The SIGTERM handler: removes this writer's half-written temp file, then exits at once.
    Python's own shutdown (torch loaded) costs a second of CPU, which a writer at the lowest
    priority on a busy machine gets only after a minute or more: the supervisor that died would
    leave it behind that long."""
    from capmap.repro.script import TEMP_SUFFIX

    def stop(signum: int, frame: FrameType | None) -> None:
        for tmp in folder.glob(f".*.{os.getpid()}{TEMP_SUFFIX}"):
            tmp.unlink(missing_ok=True)
        sys.stderr.flush()
        os._exit(128 + signum)

    return stop


def follow(
    store: Path,
    run_key: str,
    folder: Path,
    specs: Callable[[RunInfo], list[str]],
    control: int = 0,
    poll_seconds: float = POLL_SECONDS,
) -> int:
    """Writes scripts as failing records arrive until `control` closes, then the rest; returns 0."""
    signal.signal(signal.SIGTERM, _stopper(folder))
    remove_stale_temp_files(folder)
    writer: ScriptWriter | None = None
    done: dict[tuple[str, str], str] = {}
    over = False
    while not over:
        over = _run_over(control, poll_seconds)
        # Read after the wait: once the run is over, every record it made is visible.
        try:
            db = open_store(store)
        except RegistryError as exc:
            print(f"repro: {exc}", file=sys.stderr)
            continue
        try:
            if writer is None:
                run = run_info(db, store, run_key)
                writer = ScriptWriter(run, specs(run), folder)
            new = {k: c for k, c in failing_keys(db, writer.run).items() if done.get(k) != c}
            cells = case_cells(db, writer.run, sorted({name for name, _ in new})) if new else []
        except (sqlite3.Error, RegistryError) as exc:
            # A store being created or locked for a moment: read it again next time.
            print(f"repro: {store}: {exc}", file=sys.stderr)
            continue
        finally:
            db.close()
        for cell in cells:
            if (cell.case, cell.path) in new and cell.failing:
                writer.write(cell)
                done[(cell.case, cell.path)] = cell.created
    if writer is not None and writer.written:
        print(f"capmap: wrote {writer.written} repro scripts of failing cells to {folder}", file=sys.stderr)
    return 0

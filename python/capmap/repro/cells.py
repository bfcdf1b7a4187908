"""The failing cells of a results store or a snapshot: what a repro script has to reproduce."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from capmap.cases import RegistryError
from capmap.probes.path import TASK_STATUSES, is_failing

SQLITE_MAGIC = b"SQLite format 3\x00"


@dataclass
class RunInfo:
    """What the records were measured with: the run key and its parts."""

    run_key: str
    library: dict[str, Any] = field(default_factory=dict)
    versions: dict[str, Any] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)
    registries: list[str] = field(default_factory=list)
    # The paths as the run announced them (`path_info`): name -> {"statuses", "reference", ...}.
    # Empty for a store older than the announcement: the installed paths stand in.
    paths: dict[str, dict[str, Any]] = field(default_factory=dict)

    def capture_paths(self) -> list[str]:
        """The paths a cell can fail on: every announced path but the reference (eager)."""
        return [name for name, info in self._declared().items() if not info.get("reference")]

    def failing(self, path: str, status: str) -> bool:
        info = self._declared().get(path)
        if info is None or info.get("reference") or status in ("", "missing"):
            return False
        return is_failing({**TASK_STATUSES, **(info.get("statuses") or {})}, status)

    def _declared(self) -> dict[str, dict[str, Any]]:
        if not self.paths:
            # A store that predates path_info: the installed paths stand in, looked up once
            # (this imports torch and every path module).
            from capmap.probes import catalog

            self.paths = {p["name"]: p for p in catalog.announce()}
        return self.paths


def _path_info(entries: Any) -> dict[str, dict[str, Any]]:
    if not isinstance(entries, list):
        return {}
    return {str(e["name"]): e for e in entries if isinstance(e, dict) and "name" in e}


@dataclass
class Cell:
    """One case × path record, with the records of the case's other paths beside it."""

    case: str
    path: str
    record: dict[str, Any]
    siblings: dict[str, dict[str, Any]]
    run: RunInfo
    created: str = ""
    # A `capmap repro --check` verdict already stored for this very record (store) or path (snapshot).
    checked: bool = False

    @property
    def status(self) -> str:
        return str(self.record.get("status", ""))

    @property
    def failing(self) -> bool:
        """A failure of a capture path (not eager, the reference), as the run's paths declare it."""
        return self.run.failing(self.path, self.status)

    @property
    def key(self) -> str:
        return f"{self.case} {self.path}"


@dataclass
class Source:
    """A store or snapshot, read whole: its run and every capture cell."""

    file: Path
    kind: str  # "store" or "snapshot"
    run: RunInfo
    cells: list[Cell]

    def failing(self) -> list[Cell]:
        return [c for c in self.cells if c.failing]

    def find(self, case: str) -> list[Cell]:
        return [c for c in self.cells if c.case == case]


def read_source(file: Path, run_key: str = "") -> Source:
    """Reads a results store (SQLite) or a snapshot (JSON); RegistryError names the file on a problem."""
    try:
        head = file.open("rb").read(len(SQLITE_MAGIC))
    except OSError as exc:
        raise RegistryError(f"{file}: cannot read: {exc.strerror}") from exc
    if head == SQLITE_MAGIC:
        return _read_store(file, run_key)
    return _read_snapshot(file)


def _loads(text: str | None) -> Any:
    return json.loads(text) if text else {}


def open_store(file: Path) -> sqlite3.Connection:
    """The store, read-only: the supervisor may be writing it (WAL), and is never blocked."""
    try:
        return sqlite3.connect(f"file:{file}?mode=ro", uri=True, timeout=30)
    except sqlite3.Error as exc:
        raise RegistryError(f"{file}: cannot open the results store: {exc}") from exc


def run_info(db: sqlite3.Connection, file: Path, run_key: str = "") -> RunInfo:
    """The run `run_key` (default: the newest) of an open store."""
    # `capmap repro` and `capmap run --repro` pass the key. The default serves the module run on
    # its own: the newest by (created, run_key), the rule of choose_run in
    # src/merge/run_choice.cc, which is the reference; test_repro.py checks that both pick one run.
    runs = db.execute("SELECT run_key, info, created FROM runs ORDER BY created, run_key").fetchall()
    if run_key:
        runs = [r for r in runs if r[0] == run_key]
    if not runs:
        problem = f"holds no run {run_key}" if run_key else "holds no run yet"
        raise RegistryError(f"{file}: results store {problem}")
    key, info_text, _ = runs[-1]
    info = _loads(info_text)
    return RunInfo(
        run_key=key,
        library=info.get("library") or {},
        versions=info.get("versions") or {},
        settings=info.get("settings") or {},
        registries=list(info.get("registries") or []),
        paths=_path_info(info.get("path_info")),
    )


def failing_keys(db: sqlite3.Connection, run: RunInfo) -> dict[tuple[str, str], str]:
    """(case, path) → `created` of every failing capture record of the run, read cheaply."""
    capture = run.capture_paths()
    marks = ", ".join("?" * len(capture))
    rows = db.execute(
        f"SELECT case_name, path, status, created FROM records WHERE run_key=? AND path IN ({marks})",
        (run.run_key, *capture),
    ).fetchall()
    return {(name, path): created or "" for name, path, status, created in rows if run.failing(path, status)}


def case_cells(
    db: sqlite3.Connection,
    run: RunInfo,
    names: list[str] | None = None,
    checked: set[tuple[str, ...]] | None = None,
) -> list[Cell]:
    """The cells of the run's cases `names` (default: every case), each with its siblings."""
    query = "SELECT case_name, path, status, record, created FROM records WHERE run_key=?"
    run_key = run.run_key
    rows: list[tuple[Any, ...]] = []
    if names is None:
        rows = db.execute(query + " ORDER BY case_name, path", (run_key,)).fetchall()
    else:
        for name in sorted(set(names)):
            rows += db.execute(query + " AND case_name=? ORDER BY path", (run_key, name)).fetchall()
    by_case: dict[str, dict[str, tuple[dict[str, Any], str]]] = {}
    for name, path, status, record_text, created in rows:
        record = _loads(record_text)
        record["status"] = status
        by_case.setdefault(name, {})[path] = (record, created or "")
    cells = []
    for name, paths in by_case.items():
        siblings = {p: r for p, (r, _) in paths.items()}
        for path, (record, created) in paths.items():
            verdict = checked is not None and (name, path, created or "") in checked
            cells.append(Cell(name, path, record, siblings, run, created, verdict))
    return cells


def _read_store(file: Path, run_key: str) -> Source:
    db = open_store(file)
    try:
        run = run_info(db, file, run_key)
        has_repro = db.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='repro'").fetchone()
        checked: set[tuple[str, ...]] = set()
        if has_repro:
            rows_checked = db.execute(
                "SELECT case_name, path, record_created FROM repro WHERE run_key=?", (run.run_key,)
            ).fetchall()
            checked = {tuple(r) for r in rows_checked}
        cells = case_cells(db, run, None, checked)
    except sqlite3.Error as exc:
        raise RegistryError(f"{file}: not a readable results store: {exc}") from exc
    finally:
        db.close()
    return Source(file, "store", run, cells)


def _read_snapshot(file: Path) -> Source:
    try:
        snapshot = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise RegistryError(f"{file}: neither a results store nor a snapshot JSON ({exc})") from exc
    header = snapshot.get("header") if isinstance(snapshot, dict) else None
    if not isinstance(header, dict) or not isinstance(snapshot.get("cases"), list):
        raise RegistryError(f"{file}: not a capmap snapshot (no header or cases)")
    run = RunInfo(
        run_key=str(header.get("run_key", "")),
        library=header.get("library") or {},
        versions=header.get("versions") or {},
        settings=header.get("settings") or {},
        paths=_path_info(header.get("path_info")),
    )
    cells = []
    for entry in snapshot["cases"]:
        paths = entry.get("paths") or {}
        for path, record in paths.items():
            name = str(entry.get("name"))
            cells.append(Cell(name, path, dict(record), paths, run, checked="reproduced" in record))
    return Source(file, "snapshot", run, cells)

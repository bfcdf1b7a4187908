"""`python -m capmap.selection.function_change REV --request FILE`: of the cases that run a
library file whose code changed since REV, those that run none of its changed functions, so
`capmap run --changed-since REV` carries them over instead of running them.

Each changed file is split at REV and now (`function_split`). When every one changed outside
its functions, nothing can be narrowed and no case is traced. Otherwise the functions each case
enters are known: the baseline recorded them while its eager call ran (`functions`), or, for a
case without that record, its eager call (its deferred target built too) runs again, in a
forked child per case, several at once, under a trace that keeps the code objects it enters.
A case is affected by the change when
- it enters a changed file whose skeleton changed (anything may differ then),
- it enters a function whose code differs at REV (or that is new or gone),
- or a function it enters names a changed function (`helper(...)`, `self.helper`): a branch
  the eager call skips, such as one taken only under `torch.compiler.is_compiling()`, may call
  it in a capture path.
Every other case runs the same code at REV and now, on the same inputs (their digests are
compared separately), so its known results stand. A case that fails to build, to run or to
finish in time, or whose child leaves no answer, counts as affected.

The request FILE is JSON: {"registries": [...], "settings": {...}, "cases": [names],
"files": [absolute paths of the changed files in the git checkout], "jobs": N, "recorded":
{name: the baseline's `functions` of the case}}. Prints one
JSON line: {"unaffected": [names], "functions": {file: [changed functions]}, "whole":
[files changed outside their functions]}. Exit 2 when the request or git cannot be read.
`--remove-request` removes FILE once it is read (capmap writes one for each call, and a
capmap killed while this runs would otherwise leave it behind).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import os
import select
import signal
import sys
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from capmap.selection.code_change import git_top, source_at, source_now
from capmap.selection.function_split import FileChange, Functions, compare, short_name, split_functions

# The name messages begin with: what the engine runs.
PROG = "capmap.selection.function_change"
# Seconds one case's build and eager call may take here before it counts as affected.
CASE_LIMIT_S = 120.0


# A file's bytes now (None: unreadable), read once per run whoever asks.
_text = functools.lru_cache(maxsize=1024)(source_now)


@functools.lru_cache(maxsize=1024)
def _functions_of(filename: str) -> Functions | None:
    text = _text(filename)
    return split_functions(text) if text is not None else None


@dataclass
class Change:
    """Each changed file of the checkout (absolute path) and how it changed."""

    files: dict[str, FileChange]
    short: set[str]  # the last part of every changed function's name
    found: dict[str, str | None] = field(default_factory=dict)  # checkout_file's answers

    @staticmethod
    def since(top: str, rev: str, paths: list[str]) -> Change:
        files = {p: compare(source_at(top, rev, p), _text(p) if os.path.exists(p) else None) for p in paths}
        return Change(files=files, short={short_name(k) for c in files.values() for k in c.changed})

    def narrowable(self) -> bool:
        return any(not c.whole for c in self.files.values())

    def of_file(self, filename: str, base: str) -> tuple[str, FileChange] | None:
        """The changed checkout file that `filename` (run from the library at `base`) is: the
        one whose path ends with its path below `base`."""
        if filename in self.files:
            return filename, self.files[filename]
        path = self._changed_ending(os.path.relpath(os.path.abspath(filename), base))
        return None if path is None else (path, self.files[path])

    def checkout_file(self, recorded: str) -> str | None:
        """The checkout's file recorded as `recorded` (`pkg/path.py`, below the library's base):
        a changed file, or one below a folder that holds a changed file."""
        if recorded not in self.found:
            self.found[recorded] = self._find(recorded)
        return self.found[recorded]

    def _changed_ending(self, relative: str) -> str | None:
        """The changed file whose path ends with `relative` (a path below the library's base)."""
        suffix = "/" + relative.replace(os.sep, "/")
        return next((p for p in self.files if p.replace(os.sep, "/").endswith(suffix)), None)

    def _find(self, recorded: str) -> str | None:
        changed = self._changed_ending(recorded)
        if changed is not None:
            return changed
        for path in self.files:
            folder = os.path.dirname(path)
            while os.path.dirname(folder) != folder:
                candidate = os.path.join(folder, recorded)
                if os.path.isfile(candidate):
                    return candidate
                folder = os.path.dirname(folder)
        return None


def affected_as_recorded(change: Change, recorded: dict[str, str]) -> str | None:
    """Why a case whose baseline recorded entering `recorded` ({"pkg/path.py": "f Class.m"})
    may see the change, or None."""
    for rel, keys in recorded.items():
        ran = set(keys.split())
        path = change.checkout_file(rel)
        if path is None:
            return f"{rel}: not found in the checkout"
        file_change = change.files.get(path)
        if file_change is not None:
            if file_change.whole:
                return f"{rel}: changed outside its functions"
            hit = sorted(k for k in file_change.changed if k.rstrip("'") in ran)
            if hit:
                return f"{rel}: {hit[0]} changed"
        functions = _functions_of(path)
        if functions is None:
            return f"{rel}: cannot be read"
        for key, used in functions.names.items():
            if key.rstrip("'") in ran and used & change.short:
                return f"{rel}: {key} names a changed function"
    return None


def affected(change: Change, ran: list[tuple[str, int]], base: str) -> str | None:
    """Why a case whose call entered the code objects `ran` ((file, first line) each, of the
    library at `base`) may see the change, or None."""
    for filename, first_line in ran:
        functions = _functions_of(filename)
        key = functions.at(first_line) if functions is not None else None
        found = change.of_file(filename, base)
        if found is not None:
            path, file_change = found
            if file_change.whole:
                return f"{path}: changed outside its functions"
            if _text(filename) != _text(path):
                return f"{filename}: not the checkout's {path}"
            if key is not None and key in file_change.changed:
                return f"{path}: {key} changed"
        if key is not None and functions is not None and functions.names[key] & change.short:
            return f"{filename}: {key} names a changed function"
    return None


def _observe(case: Any, settings: dict[str, Any]) -> dict[str, Any]:
    """In a forked child: builds and calls the case as the eager path does, under a trace.
    Returns {"base", "ran": [[file, first line], ...]} or {"error": why}."""
    from capmap import surveyed_library
    from capmap.deferred import Deferred
    from capmap.probes import catalog, eager
    from capmap.probes.context import ProbeContext
    from capmap.random_state import start_random_state
    from capmap.tracing.file_trace import LibraryFileTrace

    owner = case.target.factory if isinstance(case.target, Deferred) else case.target
    root = surveyed_library.root_for(owner)
    if root is None:
        return {"error": "no library to trace"}
    trace = LibraryFileTrace(root, keep_code=True)
    try:
        with trace:
            case = case.resolved()
    except Exception as exc:  # noqa: BLE001 - a target that cannot be built is left to the run
        return {"error": f"building the target failed: {type(exc).__name__}"}
    start_random_state()
    ctx = ProbeContext(case=case, settings={**catalog.default_settings(), **settings}, root=root, files=trace)
    if eager.probe(ctx).get("status") == "fail":
        return {"error": "the eager call failed"}
    assert trace.code is not None
    return {"base": root.base, "ran": sorted({(c.co_filename, c.co_firstlineno) for c in trace.code})}


@dataclass
class _Child:
    name: str
    pid: int
    fd: int
    deadline: float
    chunks: list[bytes]


def _start(name: str, case: Any, settings: dict[str, Any]) -> _Child:
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        os.setpgid(0, 0)
        try:
            answer = json.dumps(_observe(case, settings))
        except BaseException as exc:  # noqa: BLE001 - the parent reads any failure as affected
            answer = json.dumps({"error": f"{type(exc).__name__}: {exc}"[:200]})
        with os.fdopen(write_end, "wb") as out:
            out.write(answer.encode())
        os._exit(0)
    os.close(write_end)
    return _Child(name, pid, read_end, time.monotonic() + CASE_LIMIT_S, [])


def _end(child: _Child, killed: bool) -> dict[str, Any]:
    if killed:
        try:
            os.killpg(child.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    os.close(child.fd)
    os.waitpid(child.pid, 0)
    if killed:
        return {"error": f"took over {CASE_LIMIT_S:.0f} s"}
    try:
        answer = json.loads(b"".join(child.chunks))
    except ValueError:
        return {"error": "the child ended without an answer"}
    return answer if isinstance(answer, dict) else {"error": "an unreadable answer"}


def observe_all(
    cases: list[tuple[str, Any]], settings: dict[str, Any], jobs: int
) -> Iterator[tuple[str, dict[str, Any]]]:
    """(name, what `_observe` found) for every case, `jobs` forked children at a time, each
    with a time limit; any trouble comes back as an error."""
    pending = deque(cases)
    running: dict[int, _Child] = {}
    while pending or running:
        while pending and len(running) < max(1, jobs):
            name, case = pending.popleft()
            child = _start(name, case, settings)
            running[child.fd] = child
        wait = max(0.0, min(c.deadline for c in running.values()) - time.monotonic())
        ready, _, _ = select.select(list(running), [], [], wait)
        for fd in ready:
            child = running[fd]
            chunk = os.read(fd, 1 << 16)
            if chunk:
                child.chunks.append(chunk)
                continue
            del running[fd]
            yield child.name, _end(child, killed=False)
        now = time.monotonic()
        for fd, child in list(running.items()):
            if child.deadline <= now:
                del running[fd]
                yield child.name, _end(child, killed=True)


def _read_request(path: str) -> dict[str, Any]:
    with open(path) as f:
        request = json.load(f)
    return {
        "cases": [str(n) for n in request["cases"]],
        "files": [str(p) for p in request["files"]],
        "settings": dict(request.get("settings") or {}),
        "registries": [str(r) for r in request.get("registries") or []],
        "jobs": int(request.get("jobs") or len(os.sched_getaffinity(0))),
        "recorded": {
            str(name): {str(f): str(k) for f, k in functions.items()}
            for name, functions in dict(request.get("recorded") or {}).items()
            if isinstance(functions, dict)
        },
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=f"python -m {PROG}", description=__doc__)
    parser.add_argument("rev")
    parser.add_argument("--request", required=True, help="the request's JSON file")
    parser.add_argument("--remove-request", action="store_true", help="remove the file once read")
    args = parser.parse_args(argv)
    try:
        request = _read_request(args.request)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        print(f"{PROG}: {args.request}: unreadable request: {exc}", file=sys.stderr)
        return 2
    finally:
        if args.remove_request:
            with contextlib.suppress(OSError):
                os.remove(args.request)
    top = git_top()
    if top is None:
        print(f"{PROG}: the current folder is not in a git checkout", file=sys.stderr)
        return 2
    change = Change.since(top, args.rev, request["files"])
    unaffected = [] if not change.narrowable() else _unaffected(change, request)
    if unaffected is None:
        return 2
    print(
        json.dumps(
            {
                "unaffected": unaffected,
                "functions": {p: sorted(c.changed) for p, c in sorted(change.files.items()) if not c.whole},
                "whole": sorted(p for p, c in change.files.items() if c.whole),
            }
        )
    )
    return 0


def _unaffected(change: Change, request: dict[str, Any]) -> list[str] | None:
    """The requested cases the change leaves alone; None when the registry cannot be loaded.
    Those whose functions the baseline recorded are decided at once; only the others are
    traced."""
    names = request["cases"]
    recorded = request["recorded"]
    unaffected = [n for n in names if n in recorded and affected_as_recorded(change, recorded[n]) is None]
    to_trace = [n for n in names if n not in recorded]
    if to_trace:
        traced = _unaffected_traced(change, {**request, "cases": to_trace})
        if traced is None:
            return None
        unaffected += traced
    order = {n: i for i, n in enumerate(names)}
    return sorted(unaffected, key=order.__getitem__)


def _unaffected_traced(change: Change, request: dict[str, Any]) -> list[str] | None:
    """Of the requested cases, those whose traced eager call enters nothing the change made."""
    from capmap.torch_threads import cap_threads_before_torch

    cap_threads_before_torch()
    from capmap import registry
    from capmap.cases import RegistryError

    try:
        reg = registry.load(request["registries"])
    except RegistryError as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return None
    # Imported once here, so that no child pays for it again.
    import gc

    import capmap.probes.eager  # noqa: F401
    from capmap.probes import catalog

    catalog.default_settings()
    gc.collect()
    gc.freeze()
    by_name = reg.by_name()
    names = request["cases"]
    found = [(n, by_name[n]) for n in names if n in by_name]
    unaffected: list[str] = []
    started = time.monotonic()
    for done, (name, seen) in enumerate(observe_all(found, request["settings"], request["jobs"]), 1):
        if "error" not in seen:
            ran = [(str(f), int(n)) for f, n in seen["ran"]]
            if affected(change, ran, str(seen["base"])) is None:
                unaffected.append(name)
        if done % 100 == 0 or done == len(found):
            took = time.monotonic() - started
            print(f"capmap: functions: {done}/{len(found)} cases traced in {took:.0f} s", file=sys.stderr)
    order = {n: i for i, n in enumerate(names)}
    return sorted(unaffected, key=order.__getitem__)


if __name__ == "__main__":
    sys.exit(main())

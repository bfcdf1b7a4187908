"""Runs one task: the eager reference, then each requested capture path, one record per path."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from capmap.capture import target_state
from capmap.cases import Case
from capmap.deferred import Deferred
from capmap.errors import library_root
from capmap.probes import eager
from capmap.probes.context import ProbeContext, Stopwatch, guarded

PATH_ORDER = ("eager", "export", "onnx", "compile")
DEFAULT_SETTINGS: dict[str, Any] = {"opset": 18, "export_strict": False}


def _capture_probe(path: str) -> Callable[[ProbeContext], dict[str, Any]]:
    # Imported on demand: a task that only asks for eager never loads the ONNX stack.
    if path == "export":
        from capmap.probes import export

        return export.probe
    if path == "onnx":
        from capmap.probes import onnx

        return onnx.probe
    if path == "compile":
        from capmap.probes import compile

        return compile.probe
    raise ValueError(f"unknown path {path!r}")


def warm_up(paths: list[str], *, run_once: bool = True) -> dict[str, float]:
    """Readies the probes of `paths` in a worker before it forks, so no child pays for it again.

    Importing a probe module does its per-process setup (the ONNX exporter's registry, the
    compiler's modules). With `run_once`, each path is then used once on tiny inputs with one
    thread (see `capmap.probes.warmup`), which pays the compiler's and the exporters' first-use
    start-up here; no thread outlives it. Returns the seconds each path's first use took.
    """
    for path in paths:
        if path != "eager":
            _capture_probe(path)
    if not run_once:
        return {}
    from capmap.probes import warmup

    return warmup.warm([p for p in paths if p != "eager"])


_FAIL_STATUS = {"export": "fail", "onnx": "export-fail", "compile": "fail"}


def run_task(case: Case, paths: list[str], settings: dict, emit: Callable[[dict], None]) -> None:
    """Runs the eager reference, then the requested paths in the order eager, export, onnx,
    compile (export first so onnx can reuse its ExportedProgram). Calls
    emit({"type": "path", "path": p}) when a path starts and
    emit({"type": "record", "path": p, "record": RECORD}) as soon as a path's record is known.
    Never raises for a case's failure: every failure becomes a record."""
    unknown = [p for p in paths if p not in PATH_ORDER]
    if unknown:
        raise ValueError(f"unknown paths {unknown}; known: {', '.join(PATH_ORDER)}")
    wanted = [p for p in PATH_ORDER if p in paths]
    # Deferred targets and inputs are built here, in the task's process, before the reference.
    build_error: BaseException | None = None
    watch = Stopwatch()
    if case.skip is None:
        try:
            case = case.resolved()
        except Exception as exc:  # noqa: BLE001 - a target that can't be built fails its case
            build_error = exc
    owner = case.target.factory if isinstance(case.target, Deferred) else case.target
    ctx = ProbeContext(case=case, settings={**DEFAULT_SETTINGS, **settings}, root=library_root(owner))

    if case.skip is not None:
        for p in wanted:
            emit(
                {
                    "type": "record",
                    "path": p,
                    "record": {"status": "skipped", "seconds": 0.0, "message": case.skip},
                }
            )
        return

    # The reference always runs; a crash here is blamed on eager.
    emit({"type": "path", "path": "eager"})
    if build_error is not None:
        state = None
        reference = {"status": "fail", **ctx.error_fields(build_error), "seconds": watch.seconds()}
        reference["message"] = f"building the target: {reference.get('message', '')}"
    else:
        state = target_state(case)
        reference = guarded(ctx, eager.probe, "fail")
    _add_flattened(ctx, reference)
    if "eager" in wanted:
        emit({"type": "record", "path": "eager", "record": reference})

    for p in wanted:
        if p == "eager":
            continue
        emit({"type": "path", "path": p})
        if reference["status"] == "fail":
            record = {"status": "eager-fail", "seconds": 0.0}
            record.update({k: reference[k] for k in ("error_type", "message", "frames") if k in reference})
        elif reference["status"] == "no-tensor-output":
            record = {"status": "no-tensor-output", "seconds": 0.0, "message": reference.get("message", "")}
        else:
            if state is not None:
                state.restore()  # each path starts from the object the eager run started from
            record = guarded(ctx, _capture_probe(p), _FAIL_STATUS[p])
        _add_flattened(ctx, record)
        emit({"type": "record", "path": p, "record": record})
    if state is not None:
        state.restore()  # the registry's object as it was, for whoever calls the case next


def _add_flattened(ctx: ProbeContext, record: dict[str, Any]) -> None:
    """Every path probed the same wrapper: each record says which library objects it opened."""
    if ctx.flat is not None and ctx.flat.notes:
        record["flattened"] = list(ctx.flat.notes)

"""Runs one task: the eager reference, then each requested capture path, one record per path.
Every failure of the case, expected by its probe or not, ends in a record (`guarded`)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from capmap import surveyed_library
from capmap.cases import Case
from capmap.culprit import note_where_unbacked_values_are_made
from capmap.deferred import Deferred
from capmap.probes import catalog, conditioning, eager, fresh_check, rehearsal
from capmap.probes.context import ProbeContext
from capmap.probes.process_plumbing import Stopwatch, captured_output, collection_paused
from capmap.random_state import start_random_state
from capmap.target_state import target_state
from capmap.tracing.file_trace import LibraryFileTrace, named_objects


def warm_up(paths: list[str], *, run_once: bool = True) -> dict[str, float]:
    """Readies the probes of `paths` in a worker before it forks, so no child pays for it again.

    Each path's `prepare()` does its per-process setup (the ONNX exporter's registry, the
    compiler's modules). With `run_once`, each path's `warm()` then uses it once on tiny inputs
    with one thread (see `capmap.probes.warmup`), which pays the compiler's and the exporters'
    first-use start-up here; no thread outlives it. Returns the seconds each path's first use took.
    """
    for path in paths:
        prepare = getattr(catalog.module(path), "prepare", None)
        if prepare is not None:
            prepare()
    if not run_once:
        return {}
    from capmap.probes import warmup

    return warmup.warm([p for p in paths if not catalog.module(p).PATH.reference])


def run_task(
    case: Case, paths: list[str], settings: dict[str, Any], emit: Callable[[dict[str, Any]], None]
) -> None:
    """Runs the eager reference, then the requested paths, each after the paths it builds on
    (export before onnx, so onnx can reuse its ExportedProgram; see `catalog.run_order`). Calls
    emit({"type": "path", "path": p}) when a path starts and
    emit({"type": "record", "path": p, "record": RECORD}) as soon as a path's record is known.
    Never raises for a case's failure: every failure becomes a record."""
    wanted = catalog.run_order(paths)
    # Deferred targets and inputs are built here, in the task's process, before the reference.
    build_error: BaseException | None = None
    watch = Stopwatch()
    owner = case.target.factory if isinstance(case.target, Deferred) else case.target
    root = surveyed_library.root_for(owner)
    # The library files building and calling the case run, and those defining what it names;
    # and the functions that ran, so `--by-function` needs no trace of its own.
    files = LibraryFileTrace(root, keep_code=True)
    if case.skip is None:
        try:
            with files:
                case = case.resolved()
        except Exception as exc:  # noqa: BLE001 - a target that can't be built fails its case
            build_error = exc
        files.add_definitions([owner, *named_objects(case.target, case.covers)])
    ctx = ProbeContext(case=case, settings={**catalog.default_settings(), **settings}, root=root, files=files)

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
        reference.update(files.record())
    else:
        state = target_state(case)
        start_random_state()
        reference = guarded(ctx, eager.probe, "fail")
    _add_flattened(ctx, reference)
    if "eager" in wanted:
        emit({"type": "record", "path": "eager", "record": reference})
    # What the eager record says the case runs; a capture that enters more says it in its own
    # record, and merge takes the union.
    known_code, known_seen = files.record(), files.seen()
    rehearsed = False

    # The programs traced here stay alive from the export path to the ONNX and AOTInductor
    # paths that reuse them; the cycle collector waits until compile (see collection_paused).
    paused = contextlib.ExitStack()
    pausing = False
    for p in wanted:
        if p == "eager":
            continue
        if p == "compile":
            paused.close()  # compile reuses no program, and its graphs are cycles to collect
        elif not pausing:
            paused.enter_context(collection_paused())
            pausing = True
        emit({"type": "path", "path": p})
        if reference["status"] == "fail":
            record = {"status": "eager-fail", "seconds": 0.0}
            record.update({k: reference[k] for k in ("error_type", "message", "frames") if k in reference})
        elif reference["status"] == "no-tensor-output":
            record = {"status": "no-tensor-output", "seconds": 0.0, "message": reference.get("message", "")}
        else:
            # A capture's failure on a data-dependent value names the library line that made it.
            # Installed here, not at import: it loads sympy, which an eager-only worker never needs.
            note_where_unbacked_values_are_made()
            plugin = catalog.module(p)
            if plugin.PATH.static_export and not rehearsed:
                # Once, under the first such path's name: a crash in it is that path's.
                rehearsed = True
                if state is not None:
                    state.restore()
                start_random_state()
                ctx.rehearsed = rehearsal.rehearse_capture(ctx)
            if state is not None:
                state.restore()  # each path starts from the object the eager run started from
            start_random_state()  # and from the random state it started from
            # Looked up at call time: the probes bench swaps a module's probe for a variant.
            record = guarded(ctx, plugin.probe, plugin.PATH.fail_status)
            _mark_constant(ctx, record)
            # A cell reached through a route that depends on the process: a fresh one decides.
            record = fresh_check.settled(case.name, p, record, ctx.settings, compared=case.check)
            if record.get("status") == "mismatch":
                # The tolerance the difference was measured against, beside it in the record.
                record.update(atol=ctx.case.atol, rtol=ctx.case.rtol)
                # And how far eager float32 itself lies from float64 there: a capture no farther
                # off than that is ill-conditioned on these inputs, not a wrong lowering.
                if state is not None:
                    state.restore()
                conditioning.judge(ctx, record)
        _add_flattened(ctx, record)
        seen = files.seen()
        if seen != known_seen:  # the record is rebuilt only when the trace grew
            known_seen = seen
            entered = files.record()
            if entered != known_code:
                record.update(entered)
                known_code = entered
        emit({"type": "record", "path": p, "record": record})
    paused.close()
    if state is not None:
        state.restore()  # the registry's object as it was, for whoever calls the case next


_CAPTURED = ("ok", "ok-breaks", "ok-unverified")
NO_INPUT = "captured as a constant: no input reaches the graph"
NO_COMPUTATION = "captured as a constant: the graph takes its inputs but computes nothing from them"
NDARRAY_INPUT = "a NumPy array among the inputs is baked into the graph: no capture path traces an ndarray"


def _mark_constant(ctx: ProbeContext, record: dict[str, Any]) -> None:
    """A capture that worked but took no input computes nothing of the inputs: it is `constant`,
    never `ok` (a kernel getter taking integers, a method whose object was baked in, an array)."""
    if record.get("status") not in _CAPTURED:
        return
    why = None
    if ctx.flat is not None and ctx.flat.plan.arrays:
        why = NDARRAY_INPUT
    elif ctx.flat is not None and not ctx.flat.plan.tensors:
        why = NO_INPUT
    elif record.get("graph_inputs") == 0:
        why = NO_INPUT
    elif record.get("outputs_constant"):
        why = NO_COMPUTATION
    if why is None:
        return
    record["captured_status"] = record["status"]
    record["status"] = "constant"
    record["message"] = why + (f" (expected: {ctx.case.constant})" if ctx.case.constant else "")


def _add_flattened(ctx: ProbeContext, record: dict[str, Any]) -> None:
    """Every path probed the same wrapper: each record says which library objects it opened."""
    if ctx.flat is not None and ctx.flat.notes:
        record["flattened"] = list(ctx.flat.notes)


def guarded(
    ctx: ProbeContext, probe: Callable[[ProbeContext], dict[str, Any]], fail_status: str
) -> dict[str, Any]:
    """Runs a probe with its output captured; an exception the probe did not expect becomes a record."""
    watch = Stopwatch()
    extra: dict[str, Any] = {}
    try:
        with captured_output(extra):
            record = probe(ctx)
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - every failure of a case ends in a record
        record = {"status": fail_status, **ctx.error_fields(exc)}
    record.setdefault("seconds", watch.seconds())
    if "log_tail" in extra:
        record["log_tail"] = extra["log_tail"]
    return record

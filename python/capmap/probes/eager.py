"""The eager reference run: the outputs every capture path is compared with."""

from __future__ import annotations

from typing import Any

import torch

from capmap.capture import flat_case, flattening_wanted
from capmap.compare import summary, vacuous_reason
from capmap.probes.context import ProbeContext
from capmap.probes.path import CapturePath
from capmap.tracing.file_trace import LibraryFileTrace

PATH = CapturePath(
    name="eager",
    label="eager",
    short="eager",
    order=0,
    description="the case called as is: the reference every capture path is compared with",
    statuses={"ok": "ok", "fail": "fail"},
    fields=("outputs", "files", "functions", "vacuous"),
    default=True,
    reference=True,
)


def probe(ctx: ProbeContext) -> dict[str, Any]:
    # The library files the call runs: `capmap run --changed` re-runs only the cases a change touches.
    trace = ctx.files if ctx.files is not None else LibraryFileTrace(ctx.root, keep_code=True)
    if flattening_wanted(ctx.case, ctx.settings):
        ctx.flat = flat_case(ctx.case)
    try:
        with torch.no_grad(), trace:
            out = ctx.call(*ctx.fresh_inputs())
    except Exception as exc:  # noqa: BLE001 - a failing call still says which files it ran
        return {"status": "fail", **ctx.error_fields(exc), **trace.record()}
    files = trace.record()
    tensors = [t.detach() for t in ctx.output_tensors(out, describe=True)]
    ctx.reference = tensors
    if not tensors:
        return {
            "status": "no-tensor-output",
            "outputs": [],
            "message": f"returned {type(out).__name__}",
            **files,
        }
    record: dict[str, Any] = {"status": "ok", "outputs": [summary(t) for t in tensors], **files}
    # Outputs within the tolerance of zero make every path's comparison vacuous (their cells
    # say so); the eager record says it too, for the registry's own tests.
    vacuous = vacuous_reason(tensors, ctx.case.atol) if ctx.case.check else None
    if vacuous is not None:
        record["vacuous"] = vacuous
    return record

"""The capture rehearsal: the library code a static torch.export runs, recorded at eager cost.

A non-strict export runs the library's Python on fake tensors, and the code it enters is what
the eager call enters plus the branches taken only under a capture (`torch.compiler.
is_exporting()`, `is_compiling()`). Tracing the export itself puts CPython 3.11 in its tracing
mode for all of torch's tracing machinery too: about 2x the export's seconds. The rehearsal
instead calls the capture module once on real tensors with the two flags an export sets, under
the case's library trace: on 150 sampled Kornia cases it entered every function the traced
exports entered (27 cases enter some the eager call does not), for 0.4 s against 26.5 s
(`bench/function_reach.py`). Once it has run, a static export collects only dynamo's code
(`ProbeContext.library_trace`); a dynamic-shape export, whose symbolic sizes take branches no
real tensor does, keeps its frame trace.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import torch

from capmap.probes.context import ProbeContext

# The flags torch.export sets for the duration of an export (torch.compiler reads them).
_FLAGS = ("_is_compiling_flag", "_is_exporting_flag")


@contextlib.contextmanager
def exporting_state() -> Iterator[None]:
    """`torch.compiler.is_compiling()` and `is_exporting()` true inside, as under an export."""
    compiler = torch.compiler
    before = {flag: getattr(compiler, flag) for flag in _FLAGS}
    try:
        for flag in _FLAGS:
            setattr(compiler, flag, True)
        yield
    finally:
        for flag, value in before.items():
            setattr(compiler, flag, value)


def can_rehearse() -> bool:
    """This torch keeps the flags where the rehearsal sets them."""
    return all(isinstance(getattr(torch.compiler, flag, None), bool) for flag in _FLAGS)


def rehearse_capture(ctx: ProbeContext) -> bool:
    """Calls the capture module under the export's flags, inside the case's trace. True when the
    call returned: a static export then needs no frame trace of its own. The caller restores the
    target's state and the random state afterwards, as before any path."""
    if ctx.files is None or not can_rehearse():
        return False
    try:
        with ctx.files, exporting_state():
            ctx.capture_module().eval()(*ctx.capture_inputs())
    except Exception:  # noqa: BLE001 - a rehearsal that fails leaves the exports their own trace
        return False
    return True

"""The eager reference run: the outputs every capture path is compared with."""

from __future__ import annotations

from typing import Any

import torch

from capmap.compare import flatten, summary
from capmap.probes.context import ProbeContext


def probe(ctx: ProbeContext) -> dict[str, Any]:
    with torch.no_grad():
        out = ctx.case.callable()(*ctx.fresh_inputs())
    tensors = [t.detach() for t in flatten(out)]
    ctx.reference = tensors
    if not tensors:
        return {"status": "no-tensor-output", "outputs": [], "message": f"returned {type(out).__name__}"}
    return {"status": "ok", "outputs": [summary(t) for t in tensors]}

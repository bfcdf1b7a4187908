"""torch.compile (inductor, fullgraph=False): one dynamo trace, its graph breaks, then a comparison."""

from __future__ import annotations

import re
import time
from typing import Any

import torch
import torch._dynamo

# Loaded with this module, so a worker that imports it before forking spares every child the cost.
import torch._inductor.compile_fx  # noqa: F401
from torch._dynamo import utils as dynamo_utils

from capmap.compare import compare, flatten
from capmap.errors import LibraryRoot, clean_message
from capmap.probes.context import ProbeContext

MAX_REASONS = 5
_GB_ID = re.compile(r"\bgb(\d{4})\b", re.IGNORECASE)
_REASON_LIMIT = 300


def probe(ctx: ProbeContext) -> dict[str, Any]:
    # A clean slate, so the counters describe this one compile only.
    torch._dynamo.reset()
    dynamo_utils.counters.clear()
    dynamo_utils.compilation_time_metrics.clear()

    compiled = torch.compile(ctx.case.callable(), backend="inductor", fullgraph=False)
    record: dict[str, Any] = {}
    start = time.perf_counter()
    try:
        with torch.no_grad():
            out = compiled(*ctx.fresh_inputs())
    except Exception as exc:  # noqa: BLE001 - the failure is what this path reports
        record.update(_break_facts(ctx.root))
        record["compile_seconds"] = _compile_seconds()
        return {"status": "fail", **record, **ctx.error_fields(exc)}
    record["first_run_seconds"] = round(time.perf_counter() - start, 6)
    record["compile_seconds"] = _compile_seconds()
    record.update(_break_facts(ctx.root))
    if record["graph_count"] == 0:
        record["note"] = "dynamo captured no graph: the function ran as plain Python"

    frames_before = dynamo_utils.counters["frames"]["total"]
    try:
        with torch.no_grad():
            compiled(*ctx.fresh_inputs())
    except Exception as exc:  # noqa: BLE001
        return {"status": "fail", **record, "stage": "second-call", **ctx.error_fields(exc)}
    record["recompiled"] = dynamo_utils.counters["frames"]["total"] > frames_before
    if record["recompiled"]:
        reasons = [r for failures in dynamo_utils.guard_failures.values() for r in failures]
        if reasons:
            # The failed guard, without the source comment dynamo aligns after it.
            first = str(reasons[-1]).strip().splitlines()[0]
            record["recompile_reason"] = clean_message(first.split("  #", 1)[0].strip(), _REASON_LIMIT)

    result = compare(ctx.reference, flatten(out), **ctx.compare_kwargs())
    record.update(result.fields())
    if not result.agrees:
        return {"status": "mismatch", **record, "message": result.detail}
    if not ctx.case.check:
        return {"status": "ok-unverified", **record}
    return {"status": "ok-breaks" if record["graph_breaks"] else "ok", **record}


def _compile_seconds() -> float:
    # Every frame dynamo compiled (the function and its resume functions) passes through here.
    return round(sum(dynamo_utils.compilation_time_metrics.get("_compile.compile_inner", [])), 6)


def _break_facts(root: LibraryRoot | None) -> dict[str, Any]:
    """Graph breaks of the single trace: how many, why (with torch's GBxxxx ids) and where."""
    breaks = list(dynamo_utils.graph_break_reasons)
    # dynamo's counters hold the full explanations (with the graph-break id) that some break
    # reasons only abbreviate, e.g. data-dependent branching.
    explained = [str(k) for k in dynamo_utils.counters["graph_break"]]
    explained += [str(k) for k in dynamo_utils.counters["unimplemented"] if str(k) not in explained]
    unused = [m for m in explained if not any(m.startswith(b.reason[:80]) for b in breaks)]

    reasons: list[dict[str, Any]] = []
    seen: set[str] = set()
    for b in breaks:
        text = b.reason
        if not _GB_ID.search(text) and unused:
            text = unused.pop(0)
        entry = _reason(text)
        where = _library_frame(b.user_stack, root)
        if where:
            entry["where"] = where
        key = entry["reason"]
        if key in seen:
            continue
        seen.add(key)
        reasons.append(entry)
    stats = dynamo_utils.counters["stats"]
    return {
        "graph_breaks": len(breaks),
        "distinct_breaks": len(seen),
        "break_reasons": reasons[:MAX_REASONS],
        "graph_count": int(stats.get("unique_graphs", 0)),
    }


def _reason(text: str) -> dict[str, Any]:
    """'Title: explanation' from dynamo's structured message, plus its graph-break id."""
    match = _GB_ID.search(text)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    title = lines[0] if lines else text.strip()
    explanation = next(
        (line.removeprefix("Explanation:").strip() for line in lines if line.startswith("Explanation:")), ""
    )
    reason = f"{title}: {explanation}" if explanation else title
    return {"reason": clean_message(reason, _REASON_LIMIT), "gb_id": f"GB{match.group(1)}" if match else None}


def _library_frame(stack: Any, root: LibraryRoot | None) -> str | None:
    if root is None or not stack:
        return None
    for frame in reversed(list(stack)):
        if frame.filename and root.shows(frame.filename):
            return root.format(frame.filename, frame.lineno, frame.name)
    return None

"""torch.compile (inductor, fullgraph=False): one dynamo trace, its graph breaks, then a comparison."""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable
from typing import Any

from capmap.compare import compare
from capmap.errors import LibraryRoot, clean_message
from capmap.probes.context import ProbeContext
from capmap.probes.path import CapturePath, ReproSpec, ReproSteps

PATH = CapturePath(
    name="compile",
    label="torch.compile",
    short="compile",
    order=30,
    description="torch.compile (inductor, fullgraph=False): graph breaks, recompiles, a comparison",
    statuses={
        "ok": "ok",
        "ok-breaks": "ok-breaks",
        "ok-unverified": "ok-unverified",
        "fail": "fail",
        "mismatch": "mismatch",
    },
    fields=(
        "graph_breaks",
        "distinct_breaks",
        "graph_count",
        "break_reasons",
        "recompiled",
        "recompile_reason",
        "compile_seconds",
        "graph_cache_hits",
        "graph_cache_misses",
        "first_run_seconds",
        "stage",
        "note",
    ),
    default=True,
)

MAX_REASONS = 5
# The reason given when graphs split with no break recorded (a rule in rules/causes.toml names it).
SPLIT_WITHOUT_REASON = "Compiled as separate graphs"
_GB_ID = re.compile(r"\bgb(\d{4})\b", re.IGNORECASE)
_REASON_LIMIT = 300
_QUOTED_FRAME = re.compile(r'File "([^"]+)", line (\d+), in (\w+)')
# dlopen's words for a library file cut short ("file too short") or not a library at all.
_SHORT_LIBRARY = re.compile(r"(/\S+\.so): (?:file too short|invalid ELF header)")
_RESUME = re.compile(r"^torch_dynamo_resume_in_(.+)_at_\d+$")
# dynamo's title for a jump on a tensor's value, which it also reports as "generic_jump ...".
_JUMP_TITLE = "Data-dependent branching"


def prepare() -> None:
    # Loaded here, in a worker before it forks, so no child pays for the compiler's modules
    # (seconds); the catalog imports this module for every `capmap list` and must stay light.
    import torch._dynamo  # noqa: F401
    import torch._inductor.compile_fx  # noqa: F401


def probe(ctx: ProbeContext) -> dict[str, Any]:
    # The library functions dynamo inlines join the case's files and functions.
    with ctx.dynamo_code():
        return _probe(ctx)


def _probe(ctx: ProbeContext) -> dict[str, Any]:
    import torch._dynamo
    from torch._dynamo import utils as dynamo_utils

    # A clean slate, so the counters describe this one compile only.
    torch._dynamo.reset()
    dynamo_utils.counters.clear()
    dynamo_utils.compilation_time_metrics.clear()

    record: dict[str, Any] = {}
    for attempt in (1, 2):
        compiled: Callable[..., Any] = torch.compile(ctx.case_function(), backend="inductor", fullgraph=False)
        start = time.perf_counter()
        values = ctx.fresh_inputs()
        try:
            with torch.no_grad():
                out = ctx.with_receiver(compiled(*values), values)
            break
        except Exception as exc:  # noqa: BLE001 - the failure is what this path reports
            broken = _broken_cache_file(exc)
            if broken is not None and attempt == 1:
                # A kernel library a killed process left half written fails every case that
                # needs it: the harness's fault, not the operator's. Drop it and compile again.
                os.remove(broken)
                record["cache_file_removed"] = broken
                torch._dynamo.reset()
                dynamo_utils.counters.clear()
                dynamo_utils.compilation_time_metrics.clear()
                continue
            record.update(_break_facts(ctx.root))
            record["compile_seconds"] = _compile_seconds()
            return {"status": "fail", **record, **ctx.error_fields(exc)}
    record["first_run_seconds"] = round(time.perf_counter() - start, 6)
    # The first call's tensors, flattened as the wrapper of the export paths does and taken now:
    # a method that changes its object and returns it would otherwise show the second call's state.
    first_outputs = [t.detach().clone() for t in ctx.output_tensors(out)]
    record["compile_seconds"] = _compile_seconds()
    # Graphs inductor found compiled in its disk cache, and graphs it had to compile.
    record["graph_cache_hits"] = dynamo_utils.counters["inductor"]["fxgraph_cache_hit"]
    record["graph_cache_misses"] = dynamo_utils.counters["inductor"]["fxgraph_cache_miss"]
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

    # The compiled case got library objects rebuilt around fresh tensors (dynamo takes any
    # Python object and lifts their tensors itself).
    result = compare(ctx.reference, first_outputs, **ctx.compare_kwargs())
    record.update(result.fields())
    if not result.agrees:
        return {"status": "mismatch", **record, "message": result.detail}
    return ctx.agreed(result, record, "ok-breaks" if record["graph_breaks"] else "ok")


def warm() -> None:
    import torch._dynamo
    from torch._dynamo import utils as dynamo_utils

    from capmap.probes.warmup import TinyModule, tiny_input

    # One small graph pays the start-up; more graphs cost their own kernels and buy no child
    # a cheaper compile (measured: 4 graphs 11.3 CPU-s on a cold cache, this one 8-10).
    with torch.no_grad():
        torch.compile(TinyModule().eval(), backend="inductor", fullgraph=False)(tiny_input())
    # Children start from a clean slate, exactly as if nothing had been compiled.
    torch._dynamo.reset()
    dynamo_utils.counters.clear()
    dynamo_utils.compilation_time_metrics.clear()


def _compile_seconds() -> float:
    from torch._dynamo import utils as dynamo_utils

    # Every frame dynamo compiled (the function and its resume functions) passes through here.
    return round(sum(dynamo_utils.compilation_time_metrics.get("_compile.compile_inner", [])), 6)


def _break_facts(root: LibraryRoot | None) -> dict[str, Any]:
    """Graph breaks of the single trace: how many, why (with torch's GBxxxx ids) and where."""
    from torch._dynamo import utils as dynamo_utils

    breaks = list(dynamo_utils.graph_break_reasons)
    # Some break reasons are abbreviations (data-dependent branching: "generic_jump ..."); dynamo's
    # counters hold the full explanations, with the graph-break id, keyed by message.
    explained = [str(k) for k in dynamo_utils.counters["graph_break"]]
    explained += [str(k) for k in dynamo_utils.counters["unimplemented"] if str(k) not in explained]
    complete = [b.reason[:80] for b in breaks if _GB_ID.search(b.reason)]
    spare = [m for m in explained if not any(m.startswith(c) for c in complete)]

    reasons: list[dict[str, Any]] = []
    seen: set[str] = set()
    used: set[str] = set()

    def add(text: str, where: str | None) -> None:
        entry = _reason(text)
        if where:
            entry["where"] = where
        if entry["reason"] not in seen:
            seen.add(entry["reason"])
            reasons.append(entry)

    # One break can be reported several times: again by each trace dynamo restarts, and a
    # data-dependent jump once as its explanation and once as "generic_jump ...". A break is
    # one source line where the trace stopped; below, never fewer than explain's graphs - 1.
    sites: set[tuple[str, int] | str] = set()
    for b in breaks:
        site = _break_site(b)
        if site in sites:
            continue
        sites.add(site)
        text = b.reason
        pool = spare or (
            [m for m in explained if m.startswith(_JUMP_TITLE)] if text.startswith("generic_jump") else []
        )
        if not _GB_ID.search(text) and pool:
            text = _explanation_for(b.user_stack, pool)
            used.add(text)
        add(text, _library_frame(b.user_stack, root))

    # A frame dynamo gave up on (a break inside a loop, say) runs as plain Python from its
    # first line: a break as well, explained only by the counters' messages.
    frames = dynamo_utils.counters["frames"]
    fallbacks = max(0, frames["total"] - frames["ok"])
    count = len(sites) + fallbacks
    graphs = int(dynamo_utils.counters["stats"].get("unique_graphs", 0))
    # A frame dynamo skipped for a break inside a loop records no break site; its callees then
    # compile as graphs of their own. torch._dynamo.explain counts graphs - 1 breaks, so the
    # count is never below that.
    split = graphs - 1 > count
    if split:
        # The skipped frame's break is counted only where dynamo gave up inlining a call.
        spare += [str(k) for k in dynamo_utils.counters["inline_call"] if str(k) not in explained]
    if fallbacks or split:
        for message in spare:
            if message not in used:
                add(message, _mentioned_frame(message, root))
    if split:
        count = graphs - 1
        if not reasons:
            add(f"{SPLIT_WITHOUT_REASON}: {graphs} graphs, and dynamo recorded no reason for them", None)
    return {
        "graph_breaks": count,
        "distinct_breaks": len(seen),
        "break_reasons": reasons[:MAX_REASONS],
        "graph_count": graphs,
    }


def _broken_cache_file(exc: BaseException) -> str | None:
    """The compiled library under inductor's cache folder that failed to load as a truncated or
    empty file, if that is what `exc` (or an exception it wraps) says."""
    cache = os.environ.get("TORCHINDUCTOR_CACHE_DIR")
    seen: BaseException | None = exc
    while seen is not None and cache:
        match = _SHORT_LIBRARY.search(str(seen))
        if match and os.path.abspath(match.group(1)).startswith(os.path.abspath(cache) + os.sep):
            return match.group(1) if os.path.isfile(match.group(1)) else None
        seen = seen.__cause__ or seen.__context__
    return None


def _break_site(reason: Any) -> tuple[str, int] | str:
    """The innermost source line of a break (its reason text when dynamo gave no stack)."""
    stack = list(reason.user_stack or [])
    if not stack:
        return str(reason.reason)
    return (str(stack[-1].filename), int(stack[-1].lineno or 0))


def _explanation_for(stack: Any, candidates: list[str]) -> str:
    """The full message that mentions the break's own source line, else the first left over."""
    if stack:
        frame = list(stack)[-1]
        for message in candidates:
            if f'"{frame.filename}", line {frame.lineno}' in message:
                return message
    return candidates[0]


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


def _mentioned_frame(message: str, root: LibraryRoot | None) -> str | None:
    """The innermost library line a dynamo message quotes (`File "...", line N, in fn`)."""
    if root is None:
        return None
    quoted = [m for m in _QUOTED_FRAME.finditer(message) if root.shows(m.group(1))]
    if not quoted:
        return None
    last = quoted[-1]
    return root.format(last.group(1), int(last.group(2)), _RESUME.sub(r"\1", last.group(3)))


def _library_frame(stack: Any, root: LibraryRoot | None) -> str | None:
    if root is None or not stack:
        return None
    for frame in reversed(list(stack)):
        if frame.filename and root.shows(frame.filename):
            # dynamo names the code after a break torch_dynamo_resume_in_<fn>_at_<line>.
            name = _RESUME.sub(r"\1", frame.name)
            return root.format(frame.filename, frame.lineno, name)
    return None


def repro_steps(spec: ReproSpec) -> ReproSteps:
    breaks_ok = '"ok-breaks" if breaks else "ok"' if spec.case.check else '"ok-unverified"'
    return ReproSteps(
        imports=("import torch._dynamo",),
        body=(
            "    # torch.compile of the case itself, inductor, graph breaks allowed: capmap's compile path.",
            "    torch._dynamo.reset()",
            '    compiled = torch.compile(call, backend="inductor", fullgraph=False)',
            "    try:",
            "        with torch.no_grad():",
            "            out = compiled(*fresh_inputs())",
            "    except Exception as exc:",
            '        print("graph breaks:", len(torch._dynamo.utils.graph_break_reasons))',
            '        return failed("fail", exc)',
            "    breaks = len(torch._dynamo.utils.graph_break_reasons)",
            '    print("graph breaks:", breaks)',
            "    try:",
            "        with torch.no_grad():",
            "            compiled(*fresh_inputs())  # a second call with fresh inputs of the same shapes",
            "    except Exception as exc:",
            '        return failed("fail", exc)',
            "    result = verdict(reference, output_tensors(out))",
            f'    return ({breaks_ok}) if result.startswith("ok") else result',
        ),
    )

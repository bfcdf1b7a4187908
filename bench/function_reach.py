"""How often a capture path enters library functions that the eager trace does not see, and
whether `--changed-since` (function by function) and the file lists would still select the case
if such a function changed.

    PYTHONPATH=python python bench/function_reach.py [--cases 200] [--seed 0] [--jobs 2]
        [--published surveys/kornia/snapshot.json] [REGISTRY...]

Selection traces each case's eager call. A capture may run other code: a branch taken only under
`torch.compiler.is_compiling()` or an export, a helper only a traced call reaches. For a sample
of the registry's cases (the bundled Kornia registry by default), each in a fresh forked process,
this bench traces the eager call and then `torch.export.export(strict=False)` of the same
capture module (the export and ONNX paths trace this way; non-strict export runs the Python
code, so a trace sees it). For every library function the export enters and the eager call does
not, it asks: were that function changed,
- would function-by-function selection select the case (the eager call enters a function of
  the function's file that names it, through the file's chain of names, or the file's
  import-time code names it), and
- would the file list select it (the eager call ran the function's file)?
A function neither selects is a cell that a change could leave stale, unless the survey recorded
what the captures entered (the worker does: a trace around each export, and the code dynamo
traced for each compile).

The compile path is measured too: dynamo reads bytecode without running frames, so the code it
inlines comes from the list dynamo keeps for each trace (`file_trace.dynamo_traced_code`; the
`eager` backend, since which code dynamo inlines does not depend on the backend).

The worker does not trace the exports themselves: a rehearsal (`probes/rehearsal.py`) calls
the capture module on real tensors under the flags an export sets, inside the case's trace.
The bench runs it too and prints the functions the traced export entered that neither the eager
call nor the rehearsal did: the record the selection would lose (none, to be right).

And the cost of recording the export's code: in each case's process the export runs once
traced and once not, in an order drawn per case, and the bench prints the sum of each beside
the rehearsal's seconds, and what leaving the trace off saves of the published survey (its
exports ran traced).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import multiprocessing
import os
import random
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from capmap.selection.function_split import Functions, naming_closure, short_name, split_functions

_functions: dict[str, Functions | None] = {}


def functions_of(filename: str) -> Functions | None:
    if filename not in _functions:
        try:
            with open(filename, "rb") as f:
                _functions[filename] = split_functions(f.read())
        except OSError:
            _functions[filename] = None
    return _functions[filename]


def keys(ran: list[tuple[str, int]]) -> set[tuple[str, str]]:
    out = set()
    for filename, line in ran:
        functions = functions_of(filename)
        key = functions.at(line) if functions is not None else None
        if key is not None:
            out.add((filename, key))
    return out


def selected_by_function(eager: set[tuple[str, str]], filename: str, key: str) -> bool:
    functions = functions_of(filename)
    assert functions is not None
    chain = naming_closure(functions, {key})
    short = {short_name(k) for k in chain}
    ran_file = any(f == filename for f, _ in eager)
    if ran_file and functions.module_names & short:
        return True  # the file counts as changed outside its functions
    if any(f == filename and k in chain for f, k in eager):
        return True
    return any(functions_of(f) is not None and functions_of(f).names[k] & short for f, k in eager)  # type: ignore[union-attr]


_registry: dict[str, Any] = {}


def trace_case(name: str) -> dict[str, Any]:
    """In a fresh forked process: the code objects the eager call and the export enter."""
    import torch
    from capmap import surveyed_library
    from capmap.deferred import Deferred
    from capmap.probes import catalog, eager, rehearsal
    from capmap.probes.context import ProbeContext
    from capmap.random_state import start_random_state
    from capmap.tracing.file_trace import LibraryFileTrace, dynamo_traced_code

    # A failing export prints its graph: not this bench's output.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)
    case = _registry[name]
    owner = case.target.factory if isinstance(case.target, Deferred) else case.target
    root = surveyed_library.root_for(owner)
    if root is None or case.skip is not None:
        return {"name": name, "skipped": True}
    seen = LibraryFileTrace(root, keep_code=True)
    try:
        with seen:
            case = case.resolved()
    except Exception:  # noqa: BLE001
        return {"name": name, "skipped": True}
    start_random_state()
    ctx = ProbeContext(case=case, settings=catalog.default_settings(), root=root, files=seen)
    if eager.probe(ctx).get("status") != "ok":
        return {"name": name, "skipped": True}
    assert seen.code is not None
    eager_ran = sorted({(c.co_filename, c.co_firstlineno) for c in seen.code})
    exported = LibraryFileTrace(root, keep_code=True)
    ok = True
    seconds = {}
    # Plain and traced, in an order drawn per case: the second export finds warmer caches.
    for traced in sorted((False, True), key=lambda t: hash((name, t)) % 2):
        start_random_state()
        start = time.perf_counter()
        try:
            with exported if traced else contextlib.nullcontext():
                torch.export.export(ctx.capture_module().eval(), ctx.capture_inputs(), strict=False)
        except Exception:  # noqa: BLE001 - what it entered before failing still counts
            ok = False
        seconds["traced" if traced else "plain"] = time.perf_counter() - start
    assert exported.code is not None
    export_ran = sorted({(c.co_filename, c.co_firstlineno) for c in exported.code})
    rehearsed = LibraryFileTrace(root, keep_code=True)
    start_random_state()
    start = time.perf_counter()
    with contextlib.suppress(Exception):
        with rehearsed, rehearsal.exporting_state():
            ctx.capture_module().eval()(*ctx.capture_inputs())
    seconds["rehearsal"] = time.perf_counter() - start
    assert rehearsed.code is not None
    rehearsal_ran = sorted({(c.co_filename, c.co_firstlineno) for c in rehearsed.code})
    compiled = LibraryFileTrace(root, keep_code=True)
    start_random_state()
    with dynamo_traced_code() as found:
        try:
            torch.compile(ctx.case_function(), backend="eager")(*ctx.fresh_inputs())
        except Exception:  # noqa: BLE001 - what it traced before failing still counts
            pass
    compiled.add_code(code for codes in found for code in codes)
    assert compiled.code is not None
    compile_ran = sorted({(c.co_filename, c.co_firstlineno) for c in compiled.code})
    return {
        "name": name,
        "eager": eager_ran,
        "export": export_ran,
        "compile": compile_ran,
        "rehearsal": rehearsal_ran,
        "export_ok": ok,
        "seconds": seconds,
    }


def report_misses(traced: list[dict[str, Any]], path: str) -> None:
    """What `path` enters that the eager call does not, and whether a change to it would be
    selected by the eager call's functions and files alone."""
    only = Counter[str]()
    cases_with_extra = 0
    missed_by_function: list[str] = []
    missed_by_file: list[str] = []
    extra_total = 0
    for r in traced:
        eager_keys = keys([tuple(x) for x in r["eager"]])
        extra = keys([tuple(x) for x in r[path]]) - eager_keys
        if not extra:
            continue
        cases_with_extra += 1
        extra_total += len(extra)
        eager_files = {f for f, _ in r["eager"]}
        for filename, key in sorted(extra):
            only[f"{filename.rsplit('site-packages/', 1)[-1]}:{key}"] += 1
            if not selected_by_function(eager_keys, filename, key):
                missed_by_function.append(f"{r['name']}: {key}")
            if filename not in eager_files:
                missed_by_file.append(f"{r['name']}: {key}")
    n = len(traced)
    print(f"{path}: cases entering a library function the eager call does not: {cases_with_extra} of {n}")
    print(f"  such (case, function) pairs: {extra_total}; from the eager call's record alone, a change...")
    for label, missed in (("by function", missed_by_function), ("by file list", missed_by_file)):
        in_cases = len({m.split(": ")[0] for m in missed})
        selected = extra_total - len(missed)
        print(f"  selects the case {label}: {selected}; missed {len(missed)} in {in_cases} cases")
    for label, missed in (("by function", missed_by_function), ("by file", missed_by_file)):
        for line in missed[:8]:
            print(f"  missed {label}: {line}")
    print(f"  functions only {path} enters, most often:")
    for name, count in only.most_common(8):
        print(f"  {count:4d}  {name}")


def report_rehearsal(traced: list[dict[str, Any]]) -> None:
    """The export-only functions the worker's record holds: what the rehearsal entered."""
    missed: list[str] = []
    extra_cases = 0
    for r in traced:
        recorded = keys([tuple(x) for x in r["eager"]]) | keys([tuple(x) for x in r["rehearsal"]])
        extra = keys([tuple(x) for x in r["export"]]) - keys([tuple(x) for x in r["eager"]])
        extra_cases += bool(extra)
        missed += [f"{r['name']}: {key}" for _, key in sorted(extra - recorded)]
    in_cases = len({m.split(": ")[0] for m in missed})
    print(
        f"rehearsal: of the export-only functions of {extra_cases} cases, missed {len(missed)} "
        f"in {in_cases} cases"
    )
    for line in missed[:8]:
        print(f"  missed: {line}")


def report_cost(traced: list[dict[str, Any]], published: Path) -> None:
    plain = sum(r["seconds"]["plain"] for r in traced)
    with_trace = sum(r["seconds"]["traced"] for r in traced)
    rehearsed = sum(r["seconds"]["rehearsal"] for r in traced)
    ratio = with_trace / plain if plain else float("nan")
    print(f"export of {len(traced)} cases: {plain:.1f} s plain, {with_trace:.1f} s traced ({ratio:.2f}x)")
    print(
        f"the rehearsal instead: {rehearsed:.1f} s ({(plain + rehearsed) / plain:.3f}x of the plain exports)"
    )
    if published.exists():
        snapshot = json.loads(published.read_text())
        export_s = sum(
            float(c["paths"].get("export", {}).get("export_seconds") or 0) for c in snapshot["cases"]
        )
        total_s = sum(float(r.get("seconds") or 0) for c in snapshot["cases"] for r in c["paths"].values())
        # The survey's exports ran traced: what leaving the trace off saves of them.
        saved = export_s * (1 - 1 / ratio)
        print(
            f"the published survey: {export_s:.0f} s of traced exports in {total_s:.0f} s; untraced, "
            f"about {saved:.0f} s less ({100 * saved / total_s:.1f} %)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("registries", nargs="*")
    parser.add_argument("--cases", type=int, default=200, help="cases drawn from the registry")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument(
        "--published", type=Path, default=Path(__file__).resolve().parents[1] / "surveys/kornia/snapshot.json"
    )
    args = parser.parse_args()

    from capmap import registry
    from capmap.torch_threads import cap_threads_before_torch

    cap_threads_before_torch()
    reg = registry.load(args.registries)
    _registry.update(reg.by_name())
    import capmap.probes.eager  # noqa: F401 - imported before forking, once
    import torch._dynamo  # noqa: F401
    from capmap.probes import export

    export.warm()  # as a worker does before it forks: no child pays the first export's setup

    names = sorted(n for n, c in _registry.items() if c.skip is None)
    sample = random.Random(args.seed).sample(names, min(args.cases, len(names)))
    start = time.perf_counter()
    context = multiprocessing.get_context("fork")
    with context.Pool(args.jobs, maxtasksperchild=1) as pool:
        found = pool.map(trace_case, sample, chunksize=1)
    traced = [r for r in found if not r.get("skipped")]
    took = time.perf_counter() - start
    print(f"{len(traced)} of {len(sample)} sampled cases traced (eager ok) in {took:.0f} s")

    report_misses(traced, "export")
    report_misses(traced, "compile")
    report_rehearsal(traced)
    report_cost(traced, args.published)


if __name__ == "__main__":
    sys.exit(main())

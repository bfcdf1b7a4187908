"""What tracing an export again costs, and what it finds: the ONNX path after a failed export.

    PYTHONPATH=python python bench/trace_repeat.py [--cases 20] [--seed 0]
        [--published surveys/kornia/snapshot.json] [--only NAME...]

When the export path fails, the ONNX path has nothing to convert and the exporter runs its own
captures: a non-strict export, the export path's own call, then a strict one (dynamo). The
library trace around an export puts Python in its tracing mode, which about doubles the
seconds of everything that runs under it, dynamo included. The worker traces such a repeat only
for the code dynamo traced (`ProbeContext.library_trace`), since the non-strict attempt runs the
frames the export path's trace already saw.

For cases whose export failed in the published survey (a seeded sample, or `--only`), each in a
fresh forked process per mode, in an order drawn per case, this bench runs the eager reference,
the export path and the ONNX path:
- `repeat`: the ONNX path's export traced in full again (as before);
- `once`: the repeat only collects dynamo's code (what the worker does).
It prints each mode's ONNX seconds and the case's recorded files and functions (the union over
its records, what selection reads), and the cases whose recorded code differs between modes.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import multiprocessing
import os
import random
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]


def measure(name: str, mode: str, out: Any) -> None:
    """In a forked child: the task's records, with the repeat traced in full or not."""
    quiet = os.open(os.devnull, os.O_WRONLY)  # the exporter's and dynamo's messages
    os.dup2(quiet, 1)
    os.dup2(quiet, 2)
    from capmap import registry
    from capmap.probes import context
    from capmap.probes.task import run_task

    if mode == "repeat":
        traced = context.ProbeContext.library_trace

        @contextlib.contextmanager
        def every_time(self: context.ProbeContext, export: str | None = None) -> Iterator[None]:
            with traced(self, None):
                yield

        context.ProbeContext.library_trace = every_time
    reg = registry.load([])
    case = next(c for c in reg.cases if c.name == name)
    messages: list[dict[str, Any]] = []
    run_task(case, ["eager", "export", "onnx"], {}, messages.append)
    records = {m["path"]: m["record"] for m in messages if m["type"] == "record"}
    out.send(records)


def run_mode(name: str, mode: str) -> dict[str, Any]:
    parent, child = multiprocessing.Pipe(duplex=False)
    process = multiprocessing.get_context("fork").Process(target=measure, args=(name, mode, child))
    process.start()
    records: dict[str, Any] = parent.recv() if parent.poll(1800) else {}
    process.join()
    return records


def recorded_code(records: dict[str, Any]) -> tuple[frozenset[str], frozenset[str]]:
    files: set[str] = set()
    functions: set[str] = set()
    for record in records.values():
        files.update(record.get("files") or {})
        for path, names in (record.get("functions") or {}).items():
            functions.update(f"{path}:{n}" for n in names.split())
    return frozenset(files), frozenset(functions)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=20, help="cases to sample")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--published", type=Path, default=REPO / "surveys/kornia/snapshot.json")
    parser.add_argument("--only", nargs="*", default=[], help="these cases instead of a sample")
    args = parser.parse_args()

    names = list(args.only)
    if not names:
        published = json.loads(args.published.read_text())
        failed = [
            c["name"]
            for c in published["cases"]
            if (c["paths"].get("export") or {}).get("status") == "fail" and c["paths"].get("onnx")
        ]
        names = sorted(random.Random(args.seed).sample(failed, min(args.cases, len(failed))))
    draw = random.Random(args.seed)
    totals = {"repeat": 0.0, "once": 0.0}
    differ: list[str] = []
    missed: Counter[str] = Counter()  # what only the repeated trace found, by function name
    print("case\tonnx_s_repeat\tonnx_s_once\tonnx_status\tfiles\tfunctions\tsame_code", flush=True)
    for name in names:
        modes = ["repeat", "once"]
        draw.shuffle(modes)
        got = {mode: run_mode(name, mode) for mode in modes}
        if not all("onnx" in got[m] for m in got):
            print(f"{name}\tno onnx record\t\t\t\t\t", flush=True)
            continue
        seconds = {m: float(got[m]["onnx"].get("seconds", 0.0)) for m in got}
        for m in seconds:
            totals[m] += seconds[m]
        code = {m: recorded_code(got[m]) for m in got}
        same = code["repeat"] == code["once"]
        if not same:
            differ.append(name)
            only = sorted((code["repeat"][1] - code["once"][1]) | (code["repeat"][0] - code["once"][0]))
            missed.update(f.rsplit(".", 1)[-1] if ":" in f else f for f in only)
            extra = sorted((code["once"][1] - code["repeat"][1]) | (code["once"][0] - code["repeat"][0]))
            print(f"#\t{name}\tonly traced again: {' '.join(only)}", flush=True)
            if extra:
                print(f"#\t{name}\tonly once: {' '.join(extra)}", flush=True)
        status = got["once"]["onnx"]["status"]
        if status != got["repeat"]["onnx"]["status"]:
            status += f" (repeat: {got['repeat']['onnx']['status']})"
        files, functions = code["once"]
        print(
            f"{name}\t{seconds['repeat']:.1f}\t{seconds['once']:.1f}\t{status}\t{len(files)}\t"
            f"{len(functions)}\t{'yes' if same else 'NO'}",
            flush=True,
        )
    ratio = totals["once"] / totals["repeat"] if totals["repeat"] else float("nan")
    print(
        f"cases={len(names)} onnx_s_repeat={totals['repeat']:.1f} onnx_s_once={totals['once']:.1f} "
        f"ratio={ratio:.2f} recorded_code_differs={len(differ)}"
        + (f" ({', '.join(differ)})" if differ else "")
    )
    if missed:
        print(
            "found only by tracing again, by function name: "
            + ", ".join(f"{k} {v}" for k, v in missed.most_common())
        )
    sys.stdout.flush()


if __name__ == "__main__":
    main()

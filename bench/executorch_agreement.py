"""Do the executorch cells say what a user's own ExecuTorch script finds? Takes cells of a run
(a store or a snapshot), runs a plain script on each case, each alone in a fresh process of the
ExecuTorch environment, and prints how many agree.

    PYTHONPATH=python python bench/executorch_agreement.py STORE_OR_SNAPSHOT \
        --python ENV/bin/python [--cells 30] [--jobs 2] [--registry capmap.registries.kornia]

The plain script is what the XNNPACK tutorial has a user write: `torch.export.export` of the
module (the same capture module and tensors capmap traces, from its registry), then
`to_edge_transform_and_lower(program, partitioner=[XnnpackPartitioner()])`, `.to_executorch()`,
`Runtime.get().load_program(buffer).load_method("forward").execute(inputs)`, and
`torch.allclose` against the eager result at the case's tolerances. It knows only which call
raised, so a cell agrees when capmap's status names the same step: export-fail (export),
edge-fail or lower-fail (to_edge_transform_and_lower), serialize-fail (to_executorch),
load-fail, run-fail, mismatch (not allclose), ok or constant (allclose), ok-unverified (ran; the
case compares nothing, or every eager value lies within the tolerance of zero, where allclose
passes whatever the program computes: the script's "agrees" says no more than "runs"). The
cells are drawn by a hash of their names, the same share of each status, so that failures are
checked as well as successes.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sqlite3
import subprocess
import sys
import time
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]

# capmap's raw status -> the step a user's script sees fail (or its outcome).
USER_STEP = {
    "export-fail": "export",
    "edge-fail": "lower",
    "lower-fail": "lower",
    "serialize-fail": "to_executorch",
    "load-fail": "load",
    "run-fail": "run",
    "mismatch": "differs",
    "ok": "agrees",
    "constant": "agrees",
    "ok-unverified": "runs",
}


def stored_cells(source: Path) -> dict[str, str]:
    """case -> raw status of its executorch cell, from a store or a snapshot."""
    if source.suffix == ".json":
        cases = json.loads(source.read_text())["cases"]
        found = {c["name"]: c.get("paths", {}).get("executorch", {}).get("status") for c in cases}
        return {name: status for name, status in found.items() if status in USER_STEP}
    with sqlite3.connect(f"file:{source}?mode=ro", uri=True) as db:
        rows = db.execute("SELECT case_name, status FROM records WHERE path = 'executorch'").fetchall()
    return {name: status for name, status in rows if status in USER_STEP}


def draw(cells: dict[str, str], count: int) -> list[str]:
    """`count` cases, the same share of each status (at least one each), by a hash of the name."""
    by_status: dict[str, list[str]] = defaultdict(list)
    for name, status in cells.items():
        by_status[status].append(name)
    for names in by_status.values():
        names.sort(key=lambda n: hashlib.sha256(n.encode()).hexdigest())
    chosen: list[str] = []
    share = count / max(len(cells), 1)
    for _status, names in sorted(by_status.items()):
        chosen += names[: max(1, round(share * len(names)))]
    return sorted(chosen, key=lambda n: hashlib.sha256(n.encode()).hexdigest())[:count]


def plain_script(registry: str, name: str) -> dict[str, Any]:
    """In this (fresh) process: a user's ExecuTorch calls on the case; which step failed, or the verdict."""
    import torch
    from capmap import registry as registries
    from capmap.capture import flat_case, flattening_wanted, tensors_of
    from capmap.probes import catalog
    from capmap.probes.context import ProbeContext
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import to_edge_transform_and_lower
    from executorch.runtime import Runtime
    from torch.utils import _pytree as pytree

    torch.set_num_threads(1)
    case = registries.load([registry]).by_name()[name].resolved()
    ctx = ProbeContext(case=case, settings=catalog.default_settings(), root=None, files=None)
    if flattening_wanted(case, ctx.settings):
        ctx.flat = flat_case(case)
    torch.manual_seed(0)
    with torch.no_grad():
        expected = [t.detach() for t in tensors_of(ctx.capture_module()(*ctx.capture_inputs()))]
    started = time.perf_counter()
    try:
        program = torch.export.export(ctx.capture_module().eval(), ctx.capture_inputs(), strict=False)
    except Exception:  # noqa: BLE001 - which call raised is the finding
        return {"step": "export"}
    try:
        lowered = to_edge_transform_and_lower(program, partitioner=[XnnpackPartitioner()])
    except Exception:  # noqa: BLE001
        return {"step": "lower"}
    try:
        buffer = lowered.to_executorch().buffer
    except Exception:  # noqa: BLE001
        return {"step": "to_executorch"}
    try:
        method = Runtime.get().load_program(buffer).load_method("forward")
    except Exception:  # noqa: BLE001
        return {"step": "load"}
    try:
        leaves = pytree.tree_leaves(list(ctx.capture_inputs()))
        out = list(method.execute([x.contiguous() if torch.is_tensor(x) else x for x in leaves]))
    except Exception:  # noqa: BLE001
        return {"step": "run"}
    # The inputs the program writes into come back first (ExecuTorch's output order).
    specs = lowered.exported_program().graph_signature.output_specs
    out = out[len(out) - sum(1 for spec in specs if spec.kind.name == "USER_OUTPUT") :]
    seconds = time.perf_counter() - started
    if not case.check:
        return {"step": "runs", "seconds": seconds}
    same = len(out) == len(expected) and all(
        a.shape == e.shape
        and torch.allclose(a.to(e.dtype), e, atol=case.atol, rtol=case.rtol, equal_nan=True)
        for a, e in zip(out, expected, strict=True)
    )
    return {"step": "agrees" if same else "differs", "seconds": seconds}


def run_alone(python: str, registry: str, name: str) -> dict[str, Any]:
    done = subprocess.run(
        [python, __file__, "--one", name, "--registry", registry],
        capture_output=True,
        text=True,
        timeout=1800,
        env={**os.environ, "PYTHONPATH": str(REPO / "python")},
        check=False,
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        return {"step": f"crashed (exit {done.returncode})"}
    result: dict[str, Any] = json.loads(lines[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "source", nargs="?", type=Path, help="store (.db) or snapshot (.json) with executorch cells"
    )
    parser.add_argument("--python", default=sys.executable, help="the ExecuTorch environment's interpreter")
    parser.add_argument("--registry", default="capmap.registries.kornia")
    parser.add_argument("--cells", type=int, default=30)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        # ExecuTorch's and the exporter's chatter would bury the result line.
        keep = os.dup(1)
        quiet = os.open(os.devnull, os.O_WRONLY)
        os.dup2(quiet, 1)
        os.dup2(quiet, 2)
        result = plain_script(args.registry, args.one)
        os.write(keep, (json.dumps(result) + "\n").encode())
        return
    if args.source is None:
        parser.error("give a store or a snapshot with executorch cells")
    cells = stored_cells(args.source)
    if not cells:
        sys.exit(f"{args.source}: no executorch cells")
    chosen = draw(cells, args.cells)
    started = time.monotonic()
    with ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(lambda n: run_alone(args.python, args.registry, n), chosen))
    agree = 0
    for name, result in zip(chosen, results, strict=True):
        expected = USER_STEP[cells[name]]
        unverified = expected == "runs" and result["step"] == "agrees"
        if result["step"] == expected or unverified:
            agree += 1
        else:
            print(f"differs: {name}: capmap {cells[name]} ({expected}), plain script {result['step']}")
    statuses = Counter(cells[n] for n in chosen)
    print(
        f"cells: {len(chosen)} of {len(cells)} ({', '.join(f'{s} {n}' for s, n in sorted(statuses.items()))})"
    )
    print(f"wall: {time.monotonic() - started:.0f} s with {args.jobs} processes at a time")
    print(f"agreement: {agree} of {len(chosen)} ({100.0 * agree / len(chosen):.1f} %)")


if __name__ == "__main__":
    main()

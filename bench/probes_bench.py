"""Prints how long each probe path takes per task, and what sharing the export trace with ONNX saves.

    PYTHONPATH=python python3 bench/probes_bench.py [REGISTRY] [--threads N]

Runs in this process (no worker, no fork), so the figures are the probes' own cost.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path
from typing import Any

import torch
from capmap import registry
from capmap.cases import Case
from capmap.probes import run_task

DEFAULT_REGISTRY = Path(__file__).resolve().parent.parent / "tests/python/registries/capture_cases.py"
PATHS = ["eager", "export", "onnx", "compile"]
NOT_PROBED = {"eager-fail", "no-tensor-output", "skipped"}


def records(case: Case, paths: list[str]) -> dict[str, dict[str, Any]]:
    got: dict[str, dict[str, Any]] = {}

    def emit(message: dict[str, Any]) -> None:
        if message["type"] == "record":
            got[message["path"]] = message["record"]

    run_task(case, paths, {}, emit)
    return got


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("registry", nargs="?", default=str(DEFAULT_REGISTRY))
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)

    cases = [c for c in registry.load([args.registry]).cases if c.skip is None]
    # Imports and inductor's first compile are a one-off cost of a worker, not of a task.
    records(cases[0], PATHS)

    per_path: dict[str, list[float]] = {p: [] for p in PATHS}
    shared_total = separate_total = 0.0
    rows = []
    for case in cases:
        for path, record in records(case, PATHS).items():
            # Paths that never ran their probe (eager failed, nothing to capture) cost nothing.
            if record["status"] not in NOT_PROBED or path == "eager":
                per_path[path].append(record["seconds"])
        start = time.perf_counter()
        records(case, ["export", "onnx"])
        shared = time.perf_counter() - start
        start = time.perf_counter()
        records(case, ["export"])
        records(case, ["onnx"])
        separate = time.perf_counter() - start
        shared_total += shared
        separate_total += separate
        rows.append((case.name, shared, separate))

    print(f"registry: {args.registry}  cases: {len(cases)}  threads: {args.threads}")
    print(f"{'path':<8} {'median s':>9} {'max s':>8} {'tasks':>6}")
    for path, seconds in per_path.items():
        print(f"{path:<8} {statistics.median(seconds):>9.3f} {max(seconds):>8.3f} {len(seconds):>6}")
    print()
    print("export + onnx per case: one shared trace vs exporting twice (wall seconds, eager included)")
    for name, shared, separate in rows:
        print(f"  {name:<26} shared {shared:7.3f}  twice {separate:7.3f}")
    saved = separate_total - shared_total
    print(
        f"total: shared {shared_total:.2f} s, twice {separate_total:.2f} s, "
        f"saved {saved:.2f} s ({100 * saved / separate_total:.0f}%)"
    )


if __name__ == "__main__":
    main()

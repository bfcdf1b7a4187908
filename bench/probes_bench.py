"""Prints how long each probe path takes per task, and what sharing the export trace with ONNX saves.

    PYTHONPATH=python python3 bench/probes_bench.py [REGISTRY] [--threads N] [--repeats R] [--cold]

Runs in this process (no worker, no fork), so the figures are the probes' own cost.
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path
from typing import Any

import torch
from capmap import registry
from capmap.cases import Case
from capmap.probes.task import run_task
from torch._inductor import config as inductor_config

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


def onnx_export_stage(case: Case, paths: list[str], repeats: int) -> float | None:
    """Fastest of `repeats` ONNX export stages (trace + conversion), or None when it failed."""
    best = None
    for _ in range(repeats):
        record = records(case, paths).get("onnx", {})
        if record.get("status") not in ("ok", "ok-unverified", "mismatch"):
            return None
        seconds = record["stages"]["export"]
        best = seconds if best is None else min(best, seconds)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("registry", nargs="?", default=str(DEFAULT_REGISTRY))
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=3, help="runs per case when timing the ONNX export")
    parser.add_argument("--cold", action="store_true", help="disable inductor's on-disk caches")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    if args.cold:
        inductor_config.force_disable_caches = True

    cases = [c for c in registry.load([args.registry]).cases if c.skip is None]
    # Imports, the exporter's registry and inductor's first compile are paid once per worker.
    records(cases[0], PATHS)

    per_path: dict[str, list[float]] = {p: [] for p in PATHS}
    for case in cases:
        for path, record in records(case, PATHS).items():
            # Paths that never ran their probe (eager failed, nothing to capture) cost nothing.
            if record["status"] not in NOT_PROBED or path == "eager":
                per_path[path].append(record["seconds"])

    print(f"registry: {args.registry}  cases: {len(cases)}  threads: {args.threads}  cold: {args.cold}")
    print(f"{'path':<8} {'median s':>9} {'max s':>8} {'tasks':>6}")
    for path, seconds in per_path.items():
        print(f"{path:<8} {statistics.median(seconds):>9.3f} {max(seconds):>8.3f} {len(seconds):>6}")

    # The ONNX export stage converting the export path's program, against tracing on its own.
    print()
    print(f"ONNX export stage, best of {args.repeats}: shared trace vs the exporter tracing again")
    shared_total = alone_total = 0.0
    for case in cases:
        shared = onnx_export_stage(case, ["export", "onnx"], args.repeats)
        alone = onnx_export_stage(case, ["onnx"], args.repeats)
        if shared is None or alone is None:
            continue
        shared_total += shared
        alone_total += alone
        print(f"  {case.name:<26} shared {shared:7.3f}  alone {alone:7.3f}  saved {alone - shared:7.3f}")
    saved = alone_total - shared_total
    print(
        f"total: shared {shared_total:.2f} s, alone {alone_total:.2f} s, "
        f"saved {saved:.2f} s ({100 * saved / alone_total:.0f}% of the ONNX export stage)"
    )


if __name__ == "__main__":
    main()

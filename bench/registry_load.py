"""What loading a registry costs, and how much of it is the recording of tensor recipes.

    PYTHONPATH=python python bench/registry_load.py [REGISTRY] [--runs N]

Every worker of a run, every digest check and every `capmap list` loads the registry. While it
imports, each torch call passes through the recipe recorder (`capmap.tensor_recipes`), so that a
case's digest is the same on every CPU. This loads the registry (default: the bundled Kornia
one) in a fresh process N times each way: as capmap loads it, with a torch-function mode that only
calls through (what any mode costs), and with no mode; it prints the median seconds of each, the
number of torch calls recorded and the recorder's cost per call. torch and the library are
imported before the clock starts.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

CHILD = r"""
import contextlib, json, sys, time
import torch
from torch.overrides import TorchFunctionMode
from capmap import registry, tensor_recipes

how, spec = sys.argv[1], sys.argv[2]
calls = [0]


class PassThrough(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        calls[0] += 1
        return func(*args, **(kwargs or {}))


@contextlib.contextmanager
def pass_through():
    with PassThrough():
        yield tensor_recipes.BOOK


if how == "pass-through":
    tensor_recipes.recording = pass_through
elif how == "no mode":
    tensor_recipes.recording = lambda: contextlib.nullcontext(tensor_recipes.BOOK)
library = spec.rsplit(".", 1)[-1] if spec.startswith("capmap.registries.") else None
if library:
    __import__(library)
started = time.perf_counter()
loaded = registry.load([spec])
print(json.dumps({"seconds": time.perf_counter() - started, "cases": len(loaded.cases), "calls": calls[0]}))
"""

WAYS = ("recording (as capmap loads)", "pass-through", "no mode")


def load_once(how: str, spec: str) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, how, spec],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": str(REPO / "python"), "PATH": "/usr/bin:/bin", "OMP_NUM_THREADS": "1"},
    )
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("registry", nargs="?", default="capmap.registries.kornia")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    medians: dict[str, float] = {}
    calls = 0.0
    for how in WAYS:
        runs = [load_once(how, args.registry) for _ in range(args.runs)]
        medians[how] = statistics.median(r["seconds"] for r in runs)
        calls = max(calls, *(r["calls"] for r in runs))
        print(f"{how:28} {medians[how]:6.2f} s  ({int(runs[0]['cases'])} cases, median of {args.runs})")
    recording = medians[WAYS[0]] - medians["pass-through"]
    per_call = 1e6 * recording / max(calls, 1)
    mode = medians["pass-through"] - medians["no mode"]
    print(f"torch calls recorded: {int(calls)}; the recorder: {recording:.2f} s, {per_call:.0f} us a call")
    print(f"any torch-function mode costs {mode:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

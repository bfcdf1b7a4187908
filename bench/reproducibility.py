"""Do published cells reproduce? Re-runs random cells of a snapshot, each case alone in a fresh
process, and counts how many come out as the snapshot says.

    PYTHONPATH=python python bench/reproducibility.py surveys/kornia/snapshot.json \
        [--cells 200] [--seed 1] [--jobs 2] [--registry capmap.registries.kornia] \
        [--setting MKL_ENABLE_INSTRUCTIONS=SSE4_2 --setting ATEN_CPU_CAPABILITY=avx2 --setting ""]

A cell is one case x capture path the snapshot probed (page status not n/a, not carried). The
chosen cells are grouped by case; each case runs once, in a new Python process that imports the
registry and probes the case's eager reference and the chosen paths, as a worker's fresh child
does. A cell reproduces when its raw status is the snapshot's and, for a failure, the first line
of its message is the snapshot's too. Prints every cell that did not, then the figure.

Each `--setting` (environment variables, comma-separated; "" for this machine as it is) re-runs
the same cells under kernels unlike the publisher's: another ISA for torch, another MKL code
path. The header's `machine` says what the snapshot was measured on.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
FAILING = ("fail", "mismatch", "specialized", "crashed", "timeout", "oom")


def first_line(text: str) -> str:
    return (text or "").strip().splitlines()[0] if (text or "").strip() else ""


def run_alone(registry: str, case: str, paths: list[str]) -> dict[str, Any]:
    """In this process (a fresh one): the records of `case` on eager and `paths`."""
    from capmap import registry as registries
    from capmap.probes.task import run_task

    found = registries.load([registry]).by_name()[case]
    records: dict[str, Any] = {}

    def emit(event: dict[str, Any]) -> None:
        if event["type"] == "record":
            records[event["path"]] = event["record"]

    run_task(found, ["eager", *paths], {"threads": 1}, emit)
    return records


def rerun(registry: str, case: str, paths: list[str], env: dict[str, str]) -> dict[str, Any]:
    argv = [sys.executable, __file__, "--one", registry, case, ",".join(paths)]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=1800)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        return {p: {"status": "crashed", "message": done.stderr[-300:]} for p in paths}
    return json.loads(lines[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("snapshot", nargs="?")
    parser.add_argument("--cells", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--registry", default="capmap.registries.kornia")
    parser.add_argument(
        "--setting",
        action="append",
        help="re-run under these environment variables (NAME=VALUE,...; repeatable; default: as is)",
    )
    parser.add_argument("--one", nargs=3, metavar=("REGISTRY", "CASE", "PATHS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        registry, case, paths = args.one
        print(json.dumps(run_alone(registry, case, paths.split(",")), default=str))
        return 0
    if not args.snapshot:
        parser.error("give a snapshot")

    snapshot = json.loads(Path(args.snapshot).read_text())
    cells = [
        (c["name"], path, record)
        for c in snapshot["cases"]
        for path, record in c["paths"].items()
        if path != "eager" and record.get("page_status") != "n/a" and not record.get("carried")
    ]
    chosen = random.Random(args.seed).sample(cells, min(args.cells, len(cells)))
    by_case: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for name, path, record in chosen:
        by_case.setdefault(name, []).append((path, record))

    base = dict(os.environ)
    base["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO / "python"), base.get("PYTHONPATH", "")]))
    base.update(OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", TORCHINDUCTOR_COMPILE_THREADS="1")
    base.setdefault("TORCHINDUCTOR_CACHE_DIR", tempfile.mkdtemp(prefix="capmap-repro-bench-"))
    machine = snapshot["header"].get("machine") or {"cpu": snapshot["header"].get("cpu")}
    print(f"snapshot measured on: {json.dumps(machine, sort_keys=True)}")
    figures: list[str] = []
    every_cell_agrees = True
    for setting in args.setting or [""]:
        env = dict(base)
        pairs = [item.split("=", 1) for item in setting.split(",") if item.strip()]
        env.update({k.strip(): v.strip() for k, v in pairs})
        label = setting or "this machine as it is"
        same, total, wall = rerun_cells(args.registry, by_case, env, args.jobs, label)
        figures.append(
            f"{label}: reproduced {same} of {total} ({100.0 * same / max(total, 1):.1f} %), "
            f"{len(by_case)} cases, seed {args.seed}, wall {wall:.0f} s"
        )
        every_cell_agrees = every_cell_agrees and same == total
    for line in figures:
        print(line)
    return 0 if every_cell_agrees else 1


def rerun_cells(
    registry: str,
    by_case: dict[str, list[tuple[str, dict[str, Any]]]],
    env: dict[str, str],
    jobs: int,
    label: str,
) -> tuple[int, int, float]:
    """Re-runs every case of `by_case` alone under `env`; prints each cell that differs."""
    start = time.perf_counter()

    def one(name: str) -> tuple[str, dict[str, Any]]:
        return name, rerun(registry, name, [p for p, _ in by_case[name]], env)

    same = 0
    differing: list[str] = []
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        for done, (name, records) in enumerate(pool.map(one, sorted(by_case)), 1):
            for path, published in by_case[name]:
                now = records.get(path, {"status": "missing"})
                agrees = now["status"] == published["status"]
                if agrees and published.get("page_status") in FAILING:
                    agrees = first_line(now.get("message", "")) == first_line(published.get("message", ""))
                if agrees:
                    same += 1
                else:
                    differing.append(
                        f"{name} x {path}: published {published['status']} "
                        f"({first_line(published.get('message', ''))[:100]}), now {now['status']} "
                        f"({first_line(now.get('message', ''))[:100]})"
                    )
            print(f"[{label}: {done}/{len(by_case)}] {name}", file=sys.stderr, flush=True)
    for line in differing:
        print(f"differs ({label}):", line)
    total = sum(len(cells) for cells in by_case.values())
    return same, total, time.perf_counter() - start


if __name__ == "__main__":
    sys.exit(main())

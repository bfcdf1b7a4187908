"""Engine figures on the bundled example registry: throughput with 1 and 2 workers, fork latency
per task, and the CPU share of the `capmap` process itself.

    PYTHONPATH=python python bench/engine_bench.py [--bin build/tests/capmap] [--rounds 8]

The example cases are repeated `--rounds` times under distinct names so a run has enough tasks
to measure a steady state. Throughput is counted from the first fork to the last child's end
(worker start-up, which imports torch, is reported apart). Fork latency is measured inside the
worker: from just before fork() to the child's first statement, and to the moment the child
starts the case (process group, parent-death signal, output redirection, thread caps done).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]

# A registry that holds the example cases `rounds` times over, renamed per round.
REPEATING_REGISTRY = """\
import dataclasses
import os

from capmap import registry

_rounds = int(os.environ.get("CAPMAP_BENCH_ROUNDS", "1"))
_base = [c for c in registry.load(["capmap.registries.example"]).cases if c.skip is None]


def _renamed(c, r):
    variant = f"{c.variant}-r{r}" if c.variant else f"r{r}"
    return dataclasses.replace(c, name=f"{c.operator}[{variant}]")


CASES = [_renamed(c, r) for r in range(_rounds) for c in _base]
"""


def cpu_ticks(pid: int) -> tuple[int, str]:
    """utime + stime of one process (not its children), in clock ticks, and its state letter."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12]), fields[0]


def run_once(
    binary: Path, registry: Path, jobs: int, paths: str, rounds: int, folder: Path
) -> dict[str, Any]:
    store = folder / f"jobs{jobs}.db"
    timing = folder / f"jobs{jobs}.timing"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO / "python"), env.get("PYTHONPATH", "")]))
    env.setdefault("CAPMAP_PYTHON", sys.executable)
    env["CAPMAP_TIMING_LOG"] = str(timing)
    env["CAPMAP_BENCH_ROUNDS"] = str(rounds)
    argv = [str(binary), "run", str(registry), "--paths", paths, "--jobs", str(jobs)]
    argv += ["--store", str(store), "--no-merge"]

    start = time.monotonic()
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    ticks = 0
    # Sample until the process is a zombie: its final utime/stime stay readable until reaped.
    while True:
        try:
            ticks, state = cpu_ticks(proc.pid)
        except (OSError, IndexError):
            break
        if state == "Z":
            break
        time.sleep(0.02)
    wall = time.monotonic() - start
    out, _ = proc.communicate()
    if proc.returncode != 0:
        raise SystemExit(f"engine_bench: {' '.join(argv)} exited with {proc.returncode}")

    lines = [json.loads(ln) for ln in timing.read_text().splitlines() if ln.strip()]
    if not lines:
        raise SystemExit("engine_bench: the workers wrote no timings (is CAPMAP_TIMING_LOG honoured?)")
    first_fork = min(t["forked_at"] for t in lines)
    last_end = max(t["ended_at"] for t in lines)
    fork_ms = sorted(1000 * t["fork_s"] for t in lines)
    setup_ms = sorted(1000 * t["setup_s"] for t in lines)
    cpu_s = ticks / os.sysconf("SC_CLK_TCK")
    return {
        "jobs": jobs,
        "tasks": len(lines),
        "wall_s": wall,
        "busy_s": last_end - first_fork,
        "tasks_per_s": len(lines) / max(last_end - first_fork, 1e-9),
        "startup_s": wall - (last_end - first_fork),
        "fork_ms_median": statistics.median(fork_ms),
        "fork_ms_p90": fork_ms[int(0.9 * (len(fork_ms) - 1))],
        "setup_ms_median": statistics.median(setup_ms),
        "capmap_cpu_s": cpu_s,
        "capmap_cpu_percent": 100 * cpu_s / wall,
        "engine_summary": next((ln for ln in out.splitlines() if ln.startswith("summary:")), ""),
    }


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--bin", default=os.environ.get("CAPMAP_BIN", str(REPO / "build" / "tests" / "capmap"))
    )
    parser.add_argument("--rounds", type=int, default=8, help="copies of the example cases (16 each)")
    parser.add_argument("--paths", default="eager", help="paths to probe, as for capmap run --paths")
    parser.add_argument("--jobs", default="1,2", help="worker counts to compare")
    args = parser.parse_args()
    binary = Path(args.bin)
    if not os.access(binary, os.X_OK):
        raise SystemExit(f"engine_bench: no capmap binary at {binary} (build it or pass --bin)")

    print(f"engine_bench: example registry x{args.rounds}, paths={args.paths}, {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory(prefix="capmap-bench-") as tmp:
        folder = Path(tmp)
        registry = folder / "bench_registry.py"
        registry.write_text(REPEATING_REGISTRY)
        results = [
            run_once(binary, registry, int(j), args.paths, args.rounds, folder) for j in args.jobs.split(",")
        ]
    for r in results:
        print(
            f"jobs={r['jobs']} tasks={r['tasks']} tasks_per_s={r['tasks_per_s']:.2f} "
            f"(busy {r['busy_s']:.2f} s; start-up and exit {r['startup_s']:.2f} s; "
            f"wall {r['wall_s']:.2f} s) "
            f"fork_ms median={r['fork_ms_median']:.2f} p90={r['fork_ms_p90']:.2f} "
            f"fork_to_case_ms median={r['setup_ms_median']:.2f} "
            f"capmap_cpu={r['capmap_cpu_s']:.2f} s ({r['capmap_cpu_percent']:.1f}% of wall)"
        )
        if r["engine_summary"]:
            print(f"  engine: {r['engine_summary']}")
    if len(results) >= 2:
        print(f"speed-up {results[-1]['jobs']} vs {results[0]['jobs']} workers: "
              f"{results[-1]['tasks_per_s'] / results[0]['tasks_per_s']:.2f}x")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Wall time of the runs a user starts: the quick tier cold and warm, and a full survey projected.

    PYTHONPATH=python python bench/tier_bench.py [--bin build/tests/capmap] [--jobs 2]
        [--shard 5/12]

1. `capmap run` (the bundled quick tier) on a cold compiler cache: a fresh TMPDIR, so the
   workers' inductor cache folders are new, and a fresh store.
2. The same again on the cache the first run left (fresh store): what a second run costs.
3. With `--shard I/N`: `capmap run --all --shard I/N` on the warm cache, and the full survey's
   wall time projected as N times that shard's (shards are random slices by name hash).
Each line gives wall seconds, CPU seconds of the whole process tree and the run's own summary.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def run(binary: Path, args: list[str], tmpdir: Path, store: Path) -> dict[str, float | str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO / "python"), env.get("PYTHONPATH", "")]))
    env["TMPDIR"] = str(tmpdir)
    env.pop("TORCHINDUCTOR_CACHE_DIR", None)
    argv = [str(binary), "run", *args, "--store", str(store), "--no-merge"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.stderr.write(done.stderr[-3000:])
        raise SystemExit(f"tier_bench: {' '.join(argv)} exited with {done.returncode}")
    summary = next((ln for ln in done.stdout.splitlines() if ln.startswith("summary:")), "")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall": wall, "cpu": cpu, "summary": summary}


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--bin", type=Path, default=REPO / "build" / "tests" / "capmap")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--shard", help="also run --all --shard I/N and project the full survey")
    args = parser.parse_args()
    if not args.bin.exists():
        raise SystemExit(f"tier_bench: {args.bin} not found (build it, or pass --bin)")
    work = Path(tempfile.mkdtemp(prefix="capmap-tier-bench-"))
    tmpdir = work / "tmp"
    tmpdir.mkdir()
    jobs = ["--jobs", str(args.jobs)]
    rows = [
        ("quick tier, cold cache", run(args.bin, jobs, tmpdir, work / "cold.db")),
        ("quick tier, warm cache", run(args.bin, jobs, tmpdir, work / "warm.db")),
    ]
    projected = None
    if args.shard:
        shard = run(args.bin, ["--all", "--shard", args.shard, *jobs], tmpdir, work / "shard.db")
        rows.append((f"--all --shard {args.shard}, warm cache", shard))
        projected = float(shard["wall"]) * int(args.shard.split("/")[1])
    for label, row in rows:
        print(f"{label}: wall {row['wall']:.1f} s, CPU {row['cpu']:.1f} s")
        print(f"  {row['summary']}")
    if projected is not None:
        print(f"full survey projected from the shard: {projected / 60:.1f} min wall")
    return 0


if __name__ == "__main__":
    sys.exit(main())

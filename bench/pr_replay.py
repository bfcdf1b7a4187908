"""Pull-request surveys on a real stream of changes: selection and wall for every commit.

    PYTHONPATH=python python bench/pr_replay.py [--bin build/tests/capmap]
        [--commits ../shared/data/kornia-commits.tsv] [--baseline surveys/kornia/snapshot.json]
        [--jobs 2] [--matrix 4] [--measure 8] [--max-predicted S] [--out replay.tsv]

1. Prediction: `capmap list --changes-from COMMITS --baseline SNAP` replays every commit's
   changed files against the published survey (one registry load), and this script prints
   the distribution of the selection and of the predicted wall on `--jobs` cores, and on a
   matrix of `--matrix` shard jobs of `--jobs` cores each.
2. Measurement (`--measure N`): real `capmap run --changed FILES --baseline SNAP` runs of N
   commits spread over the predicted distribution (the last two at or above its p90), each
   with a cold compiler cache (a new `--compile-cache` folder) and then warm (the same folder),
   on fresh stores; then the `--matrix` shards (`--shard I/N --shard-by time`), warm, one after
   another, whose slowest is the matrix's wall. Prints measured against predicted per commit.
"""

from __future__ import annotations

import argparse
import csv
import io
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def environment() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO / "python"), env.get("PYTHONPATH", "")]))
    env.pop("TORCHINDUCTOR_CACHE_DIR", None)
    env.pop("CAPMAP_COMPILE_CACHE", None)
    return env


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def predict(binary: Path, commits: Path, baseline: Path, jobs: int, matrix: int) -> list[dict[str, str]]:
    argv = [str(binary), "list", "--all", "--changes-from", str(commits), "--baseline", str(baseline)]
    argv += ["--jobs", str(jobs), "--matrix", str(matrix)]
    start = time.perf_counter()
    done = subprocess.run(argv, env=environment(), capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"capmap list failed: {done.stderr.strip()}")
    print(f"replayed {commits.name} in {time.perf_counter() - start:.1f} s (one registry load)")
    return list(csv.DictReader(io.StringIO(done.stdout), delimiter="\t"))


def describe(rows: list[dict[str, str]], jobs: int, matrix: int) -> tuple[str, str]:
    one, many = f"wall_s_{jobs}_jobs", f"wall_s_{matrix}x{jobs}_jobs"
    cases = [float(r["cases"]) for r in rows]
    print(f"{len(rows)} commits; cases selected: median {statistics.median(cases):.0f}, "
          f"p90 {quantile(cases, 0.9):.0f}, max {max(cases):.0f}, none selected: "
          f"{sum(1 for c in cases if c == 0)}")  # fmt: skip
    for column, label in ((one, f"{jobs} cores"), (many, f"{matrix} jobs x {jobs} cores")):
        walls = [float(r[column]) for r in rows]
        print(f"predicted wall on {label}: median {statistics.median(walls):.0f} s, "
              f"p90 {quantile(walls, 0.9):.0f} s, max {max(walls):.0f} s, "
              f"<=60 s: {sum(w <= 60 for w in walls)}, <=300 s: {sum(w <= 300 for w in walls)}")  # fmt: skip
    return one, many


def pick(rows: list[dict[str, str]], column: str, n: int) -> list[dict[str, str]]:
    """N commits spread over the distribution of `column`; the last two at or above its p90."""
    ranked = sorted((r for r in rows if float(r["cases"]) > 0), key=lambda r: float(r[column]))
    p90 = quantile([float(r[column]) for r in rows], 0.9)
    high = [r for r in ranked if float(r[column]) >= p90][:2]
    rest = [r for r in ranked if r not in high]
    step = max(1, len(rest) // max(1, n - len(high)))
    return rest[::step][: n - len(high)] + high


def timed_run(
    binary: Path,
    jobs: int,
    cache: Path,
    args: list[str],
    label: str,
    env: dict[str, str],
    cwd: Path | None = None,
    keep: Path | None = None,
) -> float:
    """Seconds of `capmap run --all ARGS` on `jobs` cores with the compiler cache `cache`, into a
    fresh store (copied to `keep` afterwards, for the per-path seconds); exits naming `label`
    when the run fails."""
    with tempfile.TemporaryDirectory() as tmp:
        argv = [
            str(binary),
            "run",
            "--all",
            "--jobs",
            str(jobs),
            "--store",
            f"{tmp}/results.db",
            "--no-merge",
        ]
        argv += ["--compile-cache", str(cache), *args]
        start = time.perf_counter()
        done = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True, check=False)
        wall = time.perf_counter() - start
        if keep is not None:
            keep.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(f"{tmp}/results.db", keep)
    if done.returncode not in (0, 1):
        sys.stderr.write(done.stderr[-2000:])
        sys.exit(f"capmap run failed on {label}")
    return wall


def measure(
    binary: Path,
    commit: dict[str, str],
    files: list[str],
    baseline: Path,
    jobs: int,
    cache: Path,
    shard: str = "",
) -> float:
    args = ["--shard", shard, "--shard-by", "time"] if shard else []
    args += ["--baseline", str(baseline), "--changed", *files]
    return timed_run(binary, jobs, cache, args, commit["change"], environment())


def stream_parser(doc: str | None) -> argparse.ArgumentParser:
    """The options of the benches on the stream of commits: binary, stream, baseline, cores."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", type=Path, default=REPO / "build" / "tests" / "capmap")
    parser.add_argument(
        "--commits", type=Path, default=REPO.parent / "shared" / "data" / "kornia-commits.tsv"
    )
    parser.add_argument("--baseline", type=Path, default=REPO / "surveys" / "kornia" / "snapshot.json")
    parser.add_argument("--jobs", type=int, default=2)
    return parser


def main() -> None:
    parser = stream_parser(__doc__)
    parser.add_argument("--matrix", type=int, default=4)
    parser.add_argument("--measure", type=int, default=0, help="commits to run for real, cold and warm")
    parser.add_argument("--out", type=Path, help="write the per-commit predictions here (TSV)")
    parser.add_argument(
        "--max-predicted",
        type=float,
        default=0,
        help="measure only commits predicted at most this many seconds",
    )
    args = parser.parse_args()

    rows = predict(args.bin, args.commits, args.baseline, args.jobs, args.matrix)
    one, _ = describe(rows, args.jobs, args.matrix)
    if args.out:
        with args.out.open("w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0]), delimiter="\t")
            writer.writeheader()
            writer.writerows(rows)
    if not args.measure:
        return
    lines = [line for line in args.commits.read_text().splitlines() if not line.startswith("#")]
    stream = {r["commit"]: r["files"].split(",") for r in csv.DictReader(lines, delimiter="\t")}
    many = f"wall_s_{args.matrix}x{args.jobs}_jobs"
    print(
        f"\n{'commit':<10} {'cases':>5} {'predicted_s':>11} {'cold_s':>7} {'warm_s':>7} "
        f"{'matrix_predicted_s':>18} {'matrix_warm_s':>13}"
    )
    measured: list[tuple[float, float, float]] = []
    with tempfile.TemporaryDirectory() as cache_root:
        candidates = [r for r in rows if not args.max_predicted or float(r[one]) <= args.max_predicted]
        if len(candidates) < len(rows):
            print(f"(measuring only the {len(candidates)} commits predicted <= {args.max_predicted:.0f} s)")
        for row in pick(candidates, one, args.measure):
            cache = Path(cache_root) / row["change"]
            cold = measure(args.bin, row, stream[row["change"]], args.baseline, args.jobs, cache)
            warm = measure(args.bin, row, stream[row["change"]], args.baseline, args.jobs, cache)
            # A matrix job is one shard on its own machine: the slowest shard is the matrix's wall.
            # The shards run one after another here, each on --jobs cores, with the warm cache.
            files = stream[row["change"]]
            shards = [
                measure(args.bin, row, files, args.baseline, args.jobs, cache, f"{i}/{args.matrix}")
                for i in range(1, args.matrix + 1)
            ]
            measured.append((cold, warm, max(shards)))
            print(
                f"{row['change']:<10} {row['cases']:>5} {float(row[one]):>11.0f} {cold:>7.0f} {warm:>7.0f} "
                f"{float(row[many]):>18.0f} {max(shards):>13.0f}",
                flush=True,
            )
    if measured:
        labels = ("cold, 2 cores", "warm, 2 cores", f"warm, {args.matrix}-job matrix")
        for index, label in enumerate(labels):
            walls = [m[index] for m in measured]
            print(
                f"measured {label}: median {statistics.median(walls):.0f} s, "
                f"p90 {quantile(walls, 0.9):.0f} s, max {max(walls):.0f} s"
            )


if __name__ == "__main__":
    main()

"""Where a pull-request run's seconds went: the stores `function_change.py --keep DIR` kept.

    python bench/kept_runs.py DIR [--top 5]

For each kept store (COMMIT-cold.db, -warm.db, -shard-I.db) it prints the cases and paths
run, the busy seconds their records took, and the `--top` slowest case-paths; for a commit
kept cold and warm, the warm/cold ratio of each path's busy seconds, which says what a warm
compiler cache buys each path.
"""

from __future__ import annotations

import argparse
import sqlite3
from collections import defaultdict
from pathlib import Path


def records(store: Path) -> list[tuple[str, str, str, float]]:
    with sqlite3.connect(f"file:{store}?mode=ro", uri=True) as db:
        rows = db.execute("SELECT case_name, path, status, COALESCE(seconds, 0) FROM records").fetchall()
    return [(str(c), str(p), str(s), float(t)) for c, p, s, t in rows]


def by_path(rows: list[tuple[str, str, str, float]]) -> dict[str, float]:
    busy: dict[str, float] = defaultdict(float)
    for _, path, _, seconds in rows:
        busy[path] += seconds
    return busy


def main() -> None:
    raw = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=raw)
    parser.add_argument("kept", type=Path, help="the folder function_change.py --keep wrote")
    parser.add_argument("--top", type=int, default=5, help="slowest case-paths shown per store")
    args = parser.parse_args()
    stores = sorted(args.kept.glob("*.db"))
    if not stores:
        raise SystemExit(f"{args.kept}: no kept stores (*.db)")
    paths_of: dict[str, dict[str, float]] = {}
    for store in stores:
        rows = records(store)
        cases = len({r[0] for r in rows})
        busy = sum(r[3] for r in rows)
        paths_of[store.stem] = by_path(rows)
        slowest = sorted(rows, key=lambda r: -r[3])[: args.top]
        shown = ", ".join(f"{c}/{p} {s:.0f} s ({status})" for c, p, status, s in slowest)
        print(f"{store.stem}\t{cases} cases\t{len(rows)} records\tbusy {busy:.0f} s\tslowest: {shown}")
    for name, cold in paths_of.items():
        if not name.endswith("-cold"):
            continue
        warm = paths_of.get(name.removesuffix("-cold") + "-warm")
        if warm is None:
            continue
        ratios = ", ".join(
            f"{path} {warm.get(path, 0.0):.0f}/{seconds:.0f} s" for path, seconds in sorted(cold.items())
        )
        print(f"{name.removesuffix('-cold')}\twarm/cold busy by path: {ratios}")


if __name__ == "__main__":
    main()

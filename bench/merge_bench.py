"""Merge and diff figures on synthetic stores of 1,000 / 5,000 / 20,000 cases × 4 paths.

    PYTHONPATH=python python3 bench/merge_bench.py [--bin build/tests/capmap] [--sizes 1000,5000,20000]
        [--repeat 3]

Each store follows the schema of docs/reference/store.md and holds a realistic mix: most paths ok, the
failures drawn from the real messages in tests/cpp/merge/cause_examples.json (so every record goes
through the cause rules), some unclassified messages, graph breaks on compile. A second store with
about 2% of the paths changed gives `capmap diff` something to report. Times are wall-clock, best
of --repeat; peak memory is the child's maximum resident set (os.wait4). Budget: 20,000 cases merge
in under 2 s.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sqlite3
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from capmap.store_schema import STORE_SQL

REPO = Path(__file__).resolve().parents[1]
PATHS = ["eager", "onnx", "export", "compile"]
EXAMPLES = json.loads((REPO / "tests" / "cpp" / "merge" / "cause_examples.json").read_text())
RUN_INFO = {
    "library": {"name": "kornia", "version": "0.9.0", "revision": "bench", "source_url": "", "docs_url": ""},
    "versions": {
        "torch": "2.13.0",
        "onnx": "1.23.2",
        "onnxruntime": "1.32.0",
        "onnxscript": "0.7.2",
        "python": "3.11.9",
    },
    "settings": {"opset": 18, "export_strict": False},
    "device": "cpu",
    "cpu": "bench",
    "cores": 2,
}


def record_for(rng: random.Random, path: str) -> dict[str, Any]:
    roll = rng.random()
    if path == "eager" or roll < 0.7:
        record: dict[str, Any] = {"status": "ok", "seconds": round(rng.random(), 4)}
        if path == "onnx":
            record.update({"op_types": ["Add", "Conv", "Mul"], "size_kb": 12.5, "opset": 18})
        if path == "compile":
            record.update({"graph_breaks": 0, "graph_count": 1, "recompiled": False})
        return record
    if roll < 0.78 and path == "compile":
        breaks = [e for e in EXAMPLES if e["status"] == "ok-breaks"]
        chosen = rng.choice(breaks)
        return {
            "status": "ok-breaks",
            "seconds": 1.0,
            "graph_breaks": rng.randint(1, 4),
            "graph_count": 2,
            "break_reasons": [{"reason": chosen["message"], "gb_id": chosen["gb_id"] or None}],
        }
    if roll < 0.97:
        fitting = [e for e in EXAMPLES if e["path"] == path and e["status"] != "ok-breaks"] or EXAMPLES
        chosen = rng.choice(fitting)
        return {
            "status": chosen["status"] if chosen["path"] == path else "fail",
            "seconds": 2.0,
            "error_type": chosen["error_type"],
            "message": chosen["message"],
            "frames": ["kornia/x.py:10 in f"],
        }
    return {
        "status": "fail",
        "seconds": 2.0,
        "error_type": "ValueError",
        "message": f"unexpected value {rng.randint(0, 99)} in 'layer{rng.randint(0, 9)}'",
    }


def write_store(file: Path, cases: int, seed: int, changed: float = 0.0) -> None:
    rng = random.Random(seed)
    change_rng = random.Random(seed + 1)
    db = sqlite3.connect(file)
    db.executescript(STORE_SQL)
    db.execute("INSERT INTO runs VALUES ('bench', ?, '2026-01-01T00:00:00Z')", (json.dumps(RUN_INFO),))
    db.execute("INSERT INTO shards VALUES ('bench', 1, 1, ?)", (json.dumps(PATHS),))
    case_rows, record_rows = [], []
    for i in range(cases):
        name = f"pkg{i % 13}.op{i}[v{i % 3}]"
        info = {
            "name": name,
            "operator": f"pkg{i % 13}.op{i}",
            "variant": f"v{i % 3}",
            "group": f"pkg{i % 13}.s",
            "package": f"pkg{i % 13}",
            "section": "s",
            "note": "",
            "ref": f"lib.op{i}",
            "where": f"reg.py:{i}",
            "tags": [],
            "skip": None,
            "check": True,
            "atol": 2e-4,
            "rtol": 1e-3,
        }
        case_rows.append(("bench", name, json.dumps(info)))
        for path in PATHS:
            record = record_for(rng, path)
            if changed and change_rng.random() < changed:
                record = record_for(change_rng, path)
            record_rows.append(
                (
                    "bench",
                    name,
                    path,
                    record["status"],
                    record["seconds"],
                    json.dumps(record),
                    "2026-01-01T00:00:01Z",
                )
            )
    db.executemany("INSERT INTO cases VALUES (?, ?, ?)", case_rows)
    db.executemany("INSERT INTO records VALUES (?, ?, ?, ?, ?, ?, ?)", record_rows)
    db.commit()
    db.close()


def timed(command: list[str]) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds (user + system) and peak RSS (KiB) of one child."""
    start = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        why = child.stderr.read().decode() if child.stderr else ""
        raise SystemExit(f"{' '.join(command)} failed: {why}")
    return seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def best(command: list[str], repeat: int) -> tuple[float, float, int]:
    runs = [timed(command) for _ in range(repeat)]
    return min(r[0] for r in runs), min(r[1] for r in runs), max(r[2] for r in runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default_bin = os.environ.get("CAPMAP_BIN", str(REPO / "build" / "tests" / "capmap"))
    parser.add_argument("--bin", default=default_bin)
    parser.add_argument("--sizes", default="1000,5000,20000")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs; wall = best of {args.repeat}")
    print(
        f"{'cases':>7} {'records':>8} {'store MB':>9} {'merge s':>8} {'cpu s':>6} {'MiB':>5} "
        f"{'snapshot MB':>12} {'diff s':>7} {'cpu s':>6} {'MiB':>5}"
    )
    with tempfile.TemporaryDirectory(prefix="capmap_merge_bench_") as tmp:
        root = Path(tmp)
        for size in (int(s) for s in args.sizes.split(",")):
            old_store, new_store = root / f"old{size}.db", root / f"new{size}.db"
            write_store(old_store, size, seed=size)
            write_store(new_store, size, seed=size, changed=0.02)
            old_json, new_json = root / f"old{size}.json", root / f"new{size}.json"
            merge = [args.bin, "merge", "--store", str(old_store), "--out", str(old_json)]
            merge_s, merge_cpu, merge_kib = best(merge, args.repeat)
            timed([args.bin, "merge", "--store", str(new_store), "--out", str(new_json)])
            diff = [args.bin, "diff", str(old_json), str(new_json), "--format", "json"]
            diff_s, diff_cpu, diff_kib = best(diff, args.repeat)
            print(
                f"{size:>7} {size * len(PATHS):>8} {old_store.stat().st_size / 1e6:>9.1f} {merge_s:>8.2f} "
                f"{merge_cpu:>6.2f} {merge_kib / 1024:>5.0f} {old_json.stat().st_size / 1e6:>12.1f} "
                f"{diff_s:>7.2f} {diff_cpu:>6.2f} {diff_kib / 1024:>5.0f}"
            )


if __name__ == "__main__":
    main()

"""What isolation costs: `capmap run` against a plain loop over the same cases in one process.

    PYTHONPATH=python python bench/survey_bench.py [--bin build/tests/capmap] [--set everyday]
        [--cases 64] [--jobs 2] [--paths eager,export,onnx,compile] [--before]

Both sides run the same Kornia cases through the same probes (`capmap.probes.task.run_task`), with
one thread per process and one compile thread. The plain loop is what a user would otherwise
write: import everything once, then run the cases one after another with no isolation. Each
side runs twice: on a cold compiler cache (fresh folders) and on the warm cache the first round
left. CPU is user + system time of the whole process tree (compilers included), taken from the
kernel when the tree's root is reaped. `--before` adds a capmap round whose workers skip their
warm-up, to show what the warm-up buys. Per-stage seconds come from the records themselves.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]

# Everyday operators: colour, enhance, filters, geometric transforms (small inputs).
EVERYDAY = ("color", "enhance", "filters", "geometry.transform")
# Heavier cases: models, learned feature detectors/descriptors, augmentation containers.
HEAVY = ("models", "feature.detectors", "feature.networks", "feature.descriptors", "augmentation.container")


def pick_cases(prefixes: tuple[str, ...], count: int) -> list[str]:
    """`count` runnable cases spread evenly over the groups under `prefixes`, deterministically."""
    sys.path.insert(0, str(REPO / "python"))
    from capmap import registry

    reg = registry.load(["capmap.registries.kornia"])
    per_group: list[list[str]] = []
    for prefix in prefixes:
        names = sorted(
            c.name
            for c in reg.cases
            if c.skip is None and (c.group == prefix or c.group.startswith(prefix + "."))
        )
        per_group.append(names)
    share = max(1, count // len(prefixes))
    chosen: list[str] = []
    for names in per_group:
        step = max(1, len(names) // share)
        chosen += names[::step][:share]
    # Top up from the largest groups when a small group had fewer cases than its share.
    spare = [n for names in per_group for n in names if n not in chosen]
    chosen += spare[: max(0, count - len(chosen))]
    return sorted(chosen[:count])


def write_registry(folder: Path, names: list[str]) -> Path:
    path = folder / "bench_cases.py"
    body = (
        "# Written by bench/survey_bench.py: a fixed selection of the bundled Kornia cases.\n"
        "from capmap import registry\n\n"
        f"_names = set({sorted(names)!r})\n"
        '_all = registry.load(["capmap.registries.kornia"])\n'
        "CASES = [c for c in _all.cases if c.name in _names]\n"
    )
    path.write_text(body)
    return path


def run_tree(argv: list[str], env: dict[str, str]) -> dict[str, Any]:
    """Runs a command; returns wall time and the CPU of its whole (reaped) process tree."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = proc.communicate()
    wall = time.perf_counter() - start
    # communicate() reaped the child; its usage is now in our RUSAGE_CHILDREN, so measure the
    # difference around each call instead (one command at a time).
    return {"wall": wall, "rc": proc.returncode, "stdout": out, "stderr": err}


def timed(argv: list[str], env: dict[str, str]) -> dict[str, Any]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    result = run_tree(argv, env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    result["user"] = after.ru_utime - before.ru_utime
    result["sys"] = after.ru_stime - before.ru_stime
    result["cpu"] = result["user"] + result["sys"]
    if result["rc"] != 0:
        sys.stderr.write(result["stderr"][-4000:])
        raise SystemExit(f"survey_bench: {' '.join(argv[:3])} ... exited with {result['rc']}")
    return result


def base_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO / "python"), env.get("PYTHONPATH", "")]))
    env.pop("TORCHINDUCTOR_CACHE_DIR", None)
    env.pop("CAPMAP_NO_WARM_UP", None)
    return env


def capmap_round(
    binary: Path, registry: Path, folder: Path, tmpdir: Path, jobs: int, paths: str, warm_up: bool
) -> dict[str, Any]:
    env = base_env()
    env["TMPDIR"] = str(tmpdir)  # the workers' inductor cache slots live under it
    env["CAPMAP_TIMING_LOG"] = str(folder / "timing.jsonl")
    if not warm_up:
        env["CAPMAP_NO_WARM_UP"] = "1"
    store = folder / "results.db"
    argv = [str(binary), "run", str(registry), "--store", str(store), "--no-merge", "--jobs", str(jobs)]
    argv += ["--paths", paths]
    result = timed(argv, env)
    result["records"] = read_store(store)
    result["timing"] = [json.loads(line) for line in (folder / "timing.jsonl").read_text().splitlines()]
    summary = next((line for line in result["stdout"].splitlines() if line.startswith("summary:")), "")
    result["summary"] = dict(item.split("=", 1) for item in summary.split()[1:] if "=" in item)
    return result


def loop_round(
    registry: Path, folder: Path, cache: Path, paths: str, separate: bool = False
) -> dict[str, Any]:
    env = base_env()
    env["TORCHINDUCTOR_CACHE_DIR"] = str(cache)
    # Inductor keeps its precompiled header under TMPDIR whatever the cache folder: a TMPDIR of
    # the loop's own, so its cold round builds the header as capmap's does (150 MB, seconds).
    tmpdir = cache.parent / f"{cache.name}-tmp"
    tmpdir.mkdir(exist_ok=True)
    env["TMPDIR"] = str(tmpdir)
    out = folder / "loop.jsonl"
    argv = [sys.executable, __file__, "--loop", str(registry), "--paths", paths, "--loop-out", str(out)]
    if separate:
        argv.append("--loop-separate")
    result = timed(argv, env)
    result["records"] = {
        (r["case"], r["path"]): r["record"] for r in map(json.loads, out.read_text().splitlines())
    }
    return result


def read_store(store: Path) -> dict[tuple[str, str], dict[str, Any]]:
    with sqlite3.connect(store) as db:
        rows = db.execute("SELECT case_name, path, record FROM records").fetchall()
    return {(name, path): json.loads(record) for name, path, record in rows}


def plain_loop(registry: str, paths: list[str], out: Path, separate: bool) -> None:
    """The plain alternative: one process, every case in a row, the same probes, no isolation.

    With `separate`, the ONNX path traces the case itself instead of converting the program
    the export path traced: what a loop that calls each API on its own pays.
    """
    from capmap.torch_threads import cap_threads_before_torch

    cap_threads_before_torch()
    from capmap import registry as registry_module
    from capmap.probes import catalog
    from capmap.probes.task import run_task

    if separate:
        from capmap.probes import onnx as onnx_probe

        shared_probe = onnx_probe.probe

        def own_trace(ctx: Any) -> dict[str, Any]:
            ctx.products.pop("export", None)
            return shared_probe(ctx)

        onnx_probe.probe = own_trace

    reg = registry_module.load([registry])
    settings = {**catalog.default_settings(), "threads": 1}
    with out.open("w") as sink:
        for case in reg.cases:
            records: list[dict[str, Any]] = []

            def emit(message: dict[str, Any], into: list[dict[str, Any]] = records) -> None:
                if message.get("type") == "record":
                    into.append(message)

            run_task(case, paths, settings, emit)
            for m in records:
                line = {"case": case.name, "path": m["path"], "record": m["record"]}
                sink.write(json.dumps(line, default=str) + "\n")


STAGES = (
    ("eager reference", "eager", lambda r: r.get("seconds")),
    ("export: trace", "export", lambda r: r.get("export_seconds")),
    ("export: whole path", "export", lambda r: r.get("seconds")),
    ("onnx: convert", "onnx", lambda r: (r.get("stages") or {}).get("export")),
    ("onnx: checker", "onnx", lambda r: (r.get("stages") or {}).get("checker")),
    ("onnx: ORT load", "onnx", lambda r: (r.get("stages") or {}).get("ort_load")),
    ("onnx: ORT run", "onnx", lambda r: (r.get("stages") or {}).get("ort_run")),
    ("onnx: whole path", "onnx", lambda r: r.get("seconds")),
    ("compile: dynamo+inductor", "compile", lambda r: r.get("compile_seconds")),
    ("compile: whole path", "compile", lambda r: r.get("seconds")),
)


def stage_means(records: dict[tuple[str, str], dict[str, Any]]) -> dict[str, float]:
    out: dict[str, float] = {}
    for label, path, pick in STAGES:
        values = [pick(r) for (_, p), r in records.items() if p == path]
        values = [float(v) for v in values if isinstance(v, (int, float))]
        if values:
            out[label] = statistics.mean(values)
    return out


def graph_cache(records: dict[tuple[str, str], dict[str, Any]]) -> str:
    """Graphs the compile path found in inductor's disk cache / had to compile, over all cases."""
    hits = sum(r.get("graph_cache_hits", 0) for (_, p), r in records.items() if p == "compile")
    misses = sum(r.get("graph_cache_misses", 0) for (_, p), r in records.items() if p == "compile")
    return f"{hits} hits / {misses} misses"


def status_agreement(a: dict, b: dict) -> tuple[int, int, list[str]]:
    keys = sorted(set(a) & set(b))
    differ = [
        f"{k[0]} [{k[1]}]: {a[k]['status']} vs {b[k]['status']}"
        for k in keys
        if a[k]["status"] != b[k]["status"]
    ]
    return len(keys) - len(differ), len(keys), differ


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--bin", type=Path, default=REPO / "build" / "tests" / "capmap")
    parser.add_argument("--set", choices=("everyday", "heavy"), default="everyday")
    parser.add_argument("--cases", type=int, default=64)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--paths", default="eager,export,onnx,compile")
    parser.add_argument("--before", action="store_true", help="add a round without the workers' warm-up")
    parser.add_argument("--warm-only", action="store_true", help="skip the cold-cache round")
    parser.add_argument(
        "--separate-loop",
        action="store_true",
        help="also time a loop whose ONNX path traces each case again (no shared trace)",
    )
    parser.add_argument("--loop", help=argparse.SUPPRESS)
    parser.add_argument("--loop-separate", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--loop-out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.loop:
        plain_loop(args.loop, args.paths.split(","), args.loop_out, args.loop_separate)
        return 0
    if not args.bin.exists():
        raise SystemExit(f"survey_bench: {args.bin} not found (build it, or pass --bin)")

    names = pick_cases(EVERYDAY if args.set == "everyday" else HEAVY, args.cases)
    work = Path(tempfile.mkdtemp(prefix="capmap-survey-bench-"))
    registry = write_registry(work, names)
    loop_cache = work / "loop-cache"
    capmap_tmp = work / "capmap-tmp"
    capmap_tmp.mkdir()
    print(
        f"{len(names)} {args.set} Kornia cases, paths {args.paths}, capmap --jobs {args.jobs}; work in {work}"
    )

    rounds = [] if args.warm_only else ["cold"]
    rounds.append("warm")
    if args.warm_only:
        # Fill both caches first, untimed.
        for name in ("fill-loop", "fill-capmap"):
            (work / name).mkdir()
        loop_round(registry, work / "fill-loop", loop_cache, args.paths)
        capmap_round(args.bin, registry, work / "fill-capmap", capmap_tmp, args.jobs, args.paths, True)
    rows = []
    separate_rows = []
    for label in rounds:
        (work / f"loop-{label}").mkdir()
        loop = loop_round(registry, work / f"loop-{label}", loop_cache, args.paths)
        (work / f"capmap-{label}").mkdir()
        cap = capmap_round(
            args.bin, registry, work / f"capmap-{label}", capmap_tmp, args.jobs, args.paths, True
        )
        rows.append((label, loop, cap))
        if args.separate_loop:
            (work / f"separate-{label}").mkdir()
            separate_cache = work / "separate-cache"
            separate = loop_round(registry, work / f"separate-{label}", separate_cache, args.paths, True)
            separate_rows.append((label, separate, cap))
    before = None
    if args.before:
        # Fresh cache folders, so it compares with the cold round.
        (work / "capmap-before").mkdir()
        fresh_tmp = work / "capmap-before-tmp"
        fresh_tmp.mkdir()
        before = capmap_round(
            args.bin, registry, work / "capmap-before", fresh_tmp, args.jobs, args.paths, False
        )

    n = len(names)
    print()
    print(
        "| cache | loop wall s | loop CPU s (sys) | capmap wall s | capmap CPU s (sys) "
        "| CPU/case loop | CPU/case capmap | ratio |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for label, loop, cap in rows:
        print(
            f"| {label} | {loop['wall']:.1f} | {loop['cpu']:.1f} ({loop['sys']:.1f}) | {cap['wall']:.1f} | "
            f"{cap['cpu']:.1f} ({cap['sys']:.1f}) | {loop['cpu'] / n:.2f} | {cap['cpu'] / n:.2f} | "
            f"{cap['cpu'] / loop['cpu']:.3f} |"
        )
    if before is not None:
        print(
            f"| cold, no warm-up | | | {before['wall']:.1f} | {before['cpu']:.1f} ({before['sys']:.1f}) | | "
            f"{before['cpu'] / n:.2f} | {before['cpu'] / rows[0][1]['cpu']:.3f} |"
        )
    for label, separate, cap in separate_rows:
        print(
            f"| {label}, loop tracing each path | {separate['wall']:.1f} | {separate['cpu']:.1f} "
            f"({separate['sys']:.1f}) | | | {separate['cpu'] / n:.2f} | {cap['cpu'] / n:.2f} | "
            f"{cap['cpu'] / separate['cpu']:.3f} |"
        )
    print()
    for label, loop, cap in rows:
        agree, total, differ = status_agreement(loop["records"], cap["records"])
        threads = sorted({t.get("parent_threads") for t in cap["timing"] if "parent_threads" in t})
        warm = [t for t in cap["timing"] if "warm_up_s" in t]
        setup = [t["setup_s"] for t in cap["timing"] if "setup_s" in t]
        tasks = [t for t in cap["timing"] if "task" in t]
        kept = sum(1 for t in tasks if t.get("kept"))
        print(
            f"{label}: statuses agree on {agree}/{total} case×path cells; worker threads at fork {threads}; "
            f"warm-up per worker {[w['warm_up_s'] for w in warm]} s; "
            f"tasks in a kept child {kept}/{len(tasks)}; "
            f"child setup median {statistics.median(setup) * 1000:.1f} ms; supervisor CPU "
            f"{cap['summary'].get('capmap_cpu_percent')} %, fork_ms_median "
            f"{cap['summary'].get('fork_ms_median')}"
        )
        print(
            f"  compile graph cache: loop {graph_cache(loop['records'])}, "
            f"capmap {graph_cache(cap['records'])}"
        )
        for line in differ[:10]:
            print(f"  differs: {line}")
    print()
    print("Seconds per case by stage (mean over cases that reached the stage):")
    columns = [(f"loop {label}", loop["records"]) for label, loop, _ in rows]
    columns += [(f"capmap {label}", cap["records"]) for label, _, cap in rows]
    if before is not None:
        columns.append(("capmap cold, no warm-up", before["records"]))
    means = [stage_means(records) for _, records in columns]
    print("| stage | " + " | ".join(name for name, _ in columns) + " |")
    print("|---|" + "---|" * len(columns))
    for label, _, _ in STAGES:
        cells = [f"{m[label]:.3f}" if label in m else "" for m in means]
        print(f"| {label} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Cases through a user's own capture calls, beside `capmap run` of the same cases.

    PYTHONPATH=python python bench/user_calls.py --bin build/tests/capmap
        (--cases-from STORE [--top N] | --sample N) [--jobs 2] [--rounds 1] [--cold-calls]

What part of a run is capmap's, and what part is the captures' own work that any harness on
this machine pays? The cases are those of a kept store of a real run (`--cases-from STORE`,
`function_change.py --keep`: the ones a commit selected; `--top N`: the N slowest of them), or
a stratified sample of at least N cases of the baseline snapshot (`--sample N`, as
`scripts/stratified_sample.py` draws it: the same share of every group's operators).

1. `capmap run` of those cases on a fresh compiler cache folder (cold), which fills it; with
   `--cold-calls`, the plain alternative (below) on a fresh inductor folder of its own first.
2. Then, `--rounds` times, one after the other on that warm folder:
   - `capmap run` of the same cases into a fresh store (warm), merge and page included;
   - the plain alternative: `--jobs` processes, each importing torch, the library and the
     exporters once, then taking the next case (longest first by the store's seconds) and
     making the calls a user makes: the case itself; `torch.export.export` (non-strict) and one
     run of its program; `torch.onnx.export` of that program (of the module when the export
     failed: the exporter then tries its own captures) and one ONNX Runtime run;
     `torch.compile` (inductor) called twice. No file trace, no comparison, no error
     classification, no isolation, no fresh-process checks. It reuses the exporter's operator
     registry, as capmap does, and inductor's cache folder of the capmap run (one thread per
     process on both sides).

It prints the wall, the CPU seconds of each side's whole process tree and the busy seconds per
path of both sides, then capmap's over the plain side's for each. The plain side's wall is a
floor for any tool that makes these calls on this machine: what is left above it is capmap's.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kept_runs import by_path, records

REPO = Path(__file__).resolve().parents[1]
PATHS = ("eager", "export", "onnx", "compile")


def capmap_run(
    binary: Path, cases: list[str], jobs: int, cache: Path, store: Path, baseline: Path, paths: list[str]
) -> float:
    """Seconds of `capmap run` of `cases` (merge and page included); exits when it fails. The
    baseline gives the durations that start the longest cases first, as in a pull request's run."""
    argv = [str(binary), "run", "--jobs", str(jobs), "--store", str(store), "--compile-cache", str(cache)]
    argv += ["--baseline", str(baseline)]
    argv += ["--paths", ",".join(paths), "--out", str(store.parent / "out")]
    for name in cases:
        argv += ["--only", f"={name}"]
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"capmap run failed ({done.returncode}): {done.stderr.strip().splitlines()[-1:]}")
    return wall


def slot_folders(cache: Path) -> list[Path]:
    """The inductor folders the capmap run compiled into (one per worker slot)."""
    return sorted(p for p in cache.glob("*/slot-*") if p.is_dir())


def _plain_start(inductor_cache: str, paths: list[str]) -> None:
    """Each plain process: one thread, the capmap run's inductor folder, the exporter's
    registry built once (as a loop that knows the exporter would keep it)."""
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = inductor_cache
    _PATHS[:] = paths
    # The exporter's progress lines and warnings would bury the figures.
    quiet = os.open(os.devnull, os.O_WRONLY)
    os.dup2(quiet, 1)
    os.dup2(quiet, 2)
    sys.path.insert(0, str(REPO / "python"))
    from capmap.torch_threads import cap_threads_before_torch

    cap_threads_before_torch()
    import onnxruntime  # noqa: F401
    import torch._dynamo  # noqa: F401
    import torch._inductor.compile_fx  # noqa: F401
    from capmap.probes.onnx_runtime import reuse_torchlib_registry

    reuse_torchlib_registry()
    from capmap import registry

    _CASES.update(registry.load([]).by_name())


# The registry's cases, loaded once in each plain process, and the paths whose calls it makes.
_CASES: dict[str, Any] = {}
_PATHS: list[str] = []


def _timed(calls: dict[str, float], path: str, fn: Any) -> Any:
    start = time.perf_counter()
    try:
        return fn()
    except Exception:  # noqa: BLE001 - a failing call is timed like any other
        return None
    finally:
        calls[path] = calls.get(path, 0.0) + time.perf_counter() - start


def plain_case(name: str) -> tuple[str, dict[str, float]]:
    """A user's own calls on one case; the seconds of each path's calls."""
    import onnxruntime
    import torch
    import torch._dynamo
    from capmap.capture import flat_case, flattening_wanted
    from capmap.probes import catalog
    from capmap.probes.context import ProbeContext

    if _CASES[name].skip is not None:
        return name, {}  # capmap records a skipped case without a call
    case = _CASES[name].resolved()
    ctx = ProbeContext(case=case, settings=catalog.default_settings(), root=None, files=None)
    calls: dict[str, float] = {}

    def eager() -> None:
        if flattening_wanted(case, ctx.settings):
            ctx.flat = flat_case(case)
        with torch.no_grad():
            ctx.call(*ctx.fresh_inputs())

    _timed(calls, "eager", eager)

    def export() -> Any:
        program = torch.export.export(ctx.capture_module().eval(), ctx.capture_inputs(), strict=False)
        with torch.no_grad():
            program.module()(*ctx.capture_inputs())
        return program

    program = _timed(calls, "export", export) if "export" in _PATHS else None

    def onnx() -> None:
        model = program if program is not None else ctx.capture_module().eval()
        converted = torch.onnx.export(model, ctx.capture_inputs(), dynamo=True, opset_version=18)
        assert converted is not None  # dynamo=True returns a program or raises
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        session = onnxruntime.InferenceSession(
            converted.model_proto.SerializeToString(), options, providers=["CPUExecutionProvider"]
        )
        names = [i.name for i in session.get_inputs()]
        tensors = [t for t in ctx.capture_inputs() if isinstance(t, torch.Tensor)]
        session.run(None, {n: t.detach().numpy() for n, t in zip(names, tensors, strict=False)})

    if "onnx" in _PATHS:
        _timed(calls, "onnx", onnx)

    def compile_twice() -> None:
        torch._dynamo.reset()
        compiled: Callable[..., Any] = torch.compile(ctx.case_function(), backend="inductor", fullgraph=False)
        with torch.no_grad():
            compiled(*ctx.fresh_inputs())
            compiled(*ctx.fresh_inputs())

    if "compile" in _PATHS:
        _timed(calls, "compile", compile_twice)
    return name, calls


def plain_round(
    cases: list[str], jobs: int, inductor_cache: Path, paths: list[str]
) -> tuple[float, dict[str, float]]:
    """Wall and busy seconds per path of the plain alternative on `jobs` processes."""
    start = time.perf_counter()
    busy: dict[str, float] = defaultdict(float)
    spawn = multiprocessing.get_context("spawn")
    with spawn.Pool(jobs, initializer=_plain_start, initargs=(str(inductor_cache), paths)) as pool:
        for _, calls in pool.imap_unordered(plain_case, cases, chunksize=1):
            for path, seconds in calls.items():
                busy[path] += seconds
    return time.perf_counter() - start, dict(busy)


def children_cpu() -> float:
    """CPU seconds of this process's children that ended and were waited for, and of theirs."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


class Side:
    """One side's run: its wall, the CPU of its process tree and its busy seconds per path."""

    def __init__(self, label: str, wall: float, cpu: float, busy: dict[str, float]) -> None:
        self.label, self.wall, self.cpu, self.busy = label, wall, cpu, busy

    def line(self) -> str:
        paths = ", ".join(f"{p} {self.busy.get(p, 0.0):.0f}" for p in PATHS)
        busy = sum(self.busy.values())
        return f"{self.label}\twall {self.wall:.0f} s\tcpu {self.cpu:.0f} s\tbusy {busy:.0f} s ({paths})"


def ratio_line(label: str, ours: Side, plain: Side) -> str:
    """capmap's figures over the plain side's: wall, CPU, busy in all and per capture path."""

    def over(a: float, b: float) -> str:
        return f"{a / b:.3f}" if b > 0 else "-"

    paths = ", ".join(f"{p} {over(ours.busy.get(p, 0.0), plain.busy.get(p, 0.0))}" for p in PATHS[1:])
    busy = over(sum(ours.busy.values()), sum(plain.busy.values()))
    return (
        f"{label}: capmap / user's calls\twall {over(ours.wall, plain.wall)}\t"
        f"cpu {over(ours.cpu, plain.cpu)}\tbusy {busy} ({paths})"
    )


def timed_side(run: Callable[[], Any]) -> tuple[float, float, Any]:
    """The wall and the process tree's CPU seconds of `run()`, and what it returned."""
    cpu = children_cpu()
    start = time.perf_counter()
    result = run()
    return time.perf_counter() - start, children_cpu() - cpu, result


def sampled_cases(snapshot: Path, count: int) -> list[str]:
    """At least `count` case names of `snapshot`, as scripts/stratified_sample.py draws them."""
    sys.path.insert(0, str(REPO / "scripts"))
    from stratified_sample import sample, selected_cases

    cases = json.loads(snapshot.read_text())["cases"]
    share, names = 0.0, []
    while len(names) < min(count, len(cases)):
        share += 0.01
        names = selected_cases(cases, sample(cases, share))
    return names


def main() -> None:
    raw = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=raw)
    parser.add_argument("--bin", type=Path, default=REPO / "build" / "tests" / "capmap")
    chosen = parser.add_mutually_exclusive_group(required=True)
    chosen.add_argument("--cases-from", type=Path, help="a kept store of a real run")
    chosen.add_argument("--sample", type=int, help="a stratified sample of at least N baseline cases")
    parser.add_argument("--top", type=int, default=0, help="only the N slowest cases (0: all)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=1, help="warm rounds of each side")
    parser.add_argument(
        "--baseline",
        type=Path,
        default=REPO / "surveys" / "kornia" / "snapshot.json",
        help="the snapshot whose durations order capmap's tasks (a pull request's --baseline)",
    )
    parser.add_argument(
        "--cache", type=Path, help="the compiler cache folder to use and keep (default: a temporary one)"
    )
    parser.add_argument(
        "--warm", action="store_true", help="--cache is warm already: skip the cold capmap run"
    )
    parser.add_argument("--keep", type=Path, help="copy each capmap run's store into this folder")
    parser.add_argument(
        "--paths", default=",".join(PATHS), help="the paths of both sides, from eager,export,onnx,compile"
    )
    parser.add_argument(
        "--cold-calls", action="store_true", help="also the user's calls on a fresh inductor folder (cold)"
    )
    args = parser.parse_args()
    paths = args.paths.split(",")
    if "eager" not in paths or not set(paths) <= set(PATHS):
        sys.exit(f"--paths {args.paths}: eager and any of export, onnx, compile")
    if args.warm and args.cache is None:
        sys.exit("--warm: name the warm folder with --cache")
    if args.sample is not None:
        cases = sampled_cases(args.baseline, args.sample)
        source = f"a stratified sample of {args.baseline}"
        seconds_of = {c["name"]: c for c in json.loads(args.baseline.read_text())["cases"]}
        # Longest first by the baseline's seconds, as the plain side takes them.
        cases.sort(key=lambda n: -sum(float(r.get("seconds") or 0) for r in seconds_of[n]["paths"].values()))
    else:
        if not args.cases_from.is_file():
            sys.exit(f"{args.cases_from}: no such store")
        case_seconds: dict[str, float] = defaultdict(float)
        for case, _, _, seconds in records(args.cases_from):
            case_seconds[case] += seconds
        order = sorted(case_seconds, key=lambda c: -case_seconds[c])
        cases = order[: args.top] if args.top > 0 else order
        source = args.cases_from.name
    print(f"{len(cases)} cases of {source}, {args.jobs} jobs", flush=True)

    with tempfile.TemporaryDirectory() as tmp:
        cache = args.cache or Path(tmp) / "cache"
        if not args.warm:
            if args.cold_calls:
                fresh = Path(tmp) / "plain-inductor"
                wall, cpu, busy = timed_side(lambda: plain_round(cases, args.jobs, fresh, paths)[1])
                plain = Side("user calls cold", wall, cpu, busy)
                print(plain.line(), flush=True)
            store = _store(tmp, "cold")
            wall, cpu, _ = timed_side(
                lambda store=store: capmap_run(args.bin, cases, args.jobs, cache, store, args.baseline, paths)
            )
            ours = Side("capmap cold", wall, cpu, _kept(store, args.keep))
            print(ours.line(), flush=True)
            if args.cold_calls:
                print(ratio_line("cold", ours, plain), flush=True)
        slots = slot_folders(cache)
        if not slots and "compile" in paths:
            sys.exit(f"{cache}: no inductor folder of a capmap run in it")
        warm_folder = slots[0] if slots else Path(tmp) / "plain-inductor"
        for k in range(1, args.rounds + 1):
            store = _store(tmp, f"warm-{k}")
            wall, cpu, _ = timed_side(
                lambda store=store: capmap_run(args.bin, cases, args.jobs, cache, store, args.baseline, paths)
            )
            ours = Side(f"capmap warm {k}", wall, cpu, _kept(store, args.keep))
            print(ours.line(), flush=True)
            wall, cpu, busy = timed_side(lambda: plain_round(cases, args.jobs, warm_folder, paths)[1])
            plain = Side(f"user calls warm {k}", wall, cpu, busy)
            print(plain.line(), flush=True)
            print(ratio_line(f"warm {k}", ours, plain), flush=True)


def _store(tmp: str, name: str) -> Path:
    folder = Path(tmp) / name
    folder.mkdir(exist_ok=True)
    return folder / "results.db"


def _kept(store: Path, keep: Path | None) -> dict[str, float]:
    """The store's busy seconds per path; the store copied into `keep` as NAME.db."""
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(store, keep / f"{store.parent.name}.db")
    return by_path(records(store))


if __name__ == "__main__":
    main()

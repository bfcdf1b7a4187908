"""A pull request's cases through a user's own capture calls, beside `capmap run` of the same cases.

    PYTHONPATH=python python bench/user_calls.py --bin build/tests/capmap --cases-from STORE
        [--top N] [--jobs 2] [--rounds 1]

What part of a warm pull-request run is capmap's, and what part is the captures' own work that
any harness on this machine pays? STORE is a kept store of a real run (`function_change.py
--keep`): its cases are the ones a commit selected (`--top N`: the N slowest of them).

1. `capmap run` of those cases on a fresh compiler cache folder (cold), which fills it.
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

It prints the wall and the busy seconds per path of both sides. The plain side's wall is a
floor for any tool that makes these calls on this machine: what is left above it is capmap's.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
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


def capmap_run(binary: Path, cases: list[str], jobs: int, cache: Path, store: Path, baseline: Path) -> float:
    """Seconds of `capmap run` of `cases` (merge and page included); exits when it fails. The
    baseline gives the durations that start the longest cases first, as in a pull request's run."""
    argv = [str(binary), "run", "--jobs", str(jobs), "--store", str(store), "--compile-cache", str(cache)]
    argv += ["--baseline", str(baseline)]
    argv += ["--paths", ",".join(PATHS), "--out", str(store.parent / "out")]
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


def _plain_start(inductor_cache: str) -> None:
    """Each plain process: one thread, the capmap run's inductor folder, the exporter's
    registry built once (as a loop that knows the exporter would keep it)."""
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = inductor_cache
    # The exporter's progress lines and warnings would bury the figures.
    quiet = os.open(os.devnull, os.O_WRONLY)
    os.dup2(quiet, 1)
    os.dup2(quiet, 2)
    sys.path.insert(0, str(REPO / "python"))
    from capmap.worker import cap_threads_before_torch

    cap_threads_before_torch()
    import onnxruntime  # noqa: F401
    import torch._dynamo  # noqa: F401
    import torch._inductor.compile_fx  # noqa: F401
    from capmap.probes.onnx_runtime import reuse_torchlib_registry

    reuse_torchlib_registry()
    from capmap import registry

    _CASES.update(registry.load([]).by_name())


# The registry's cases, loaded once in each plain process.
_CASES: dict[str, Any] = {}


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

    program = _timed(calls, "export", export)

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

    _timed(calls, "onnx", onnx)

    def compile_twice() -> None:
        torch._dynamo.reset()
        compiled: Callable[..., Any] = torch.compile(ctx.case_function(), backend="inductor", fullgraph=False)
        with torch.no_grad():
            compiled(*ctx.fresh_inputs())
            compiled(*ctx.fresh_inputs())

    _timed(calls, "compile", compile_twice)
    return name, calls


def plain_round(cases: list[str], jobs: int, inductor_cache: Path) -> tuple[float, dict[str, float]]:
    """Wall and busy seconds per path of the plain alternative on `jobs` processes."""
    start = time.perf_counter()
    busy: dict[str, float] = defaultdict(float)
    spawn = multiprocessing.get_context("spawn")
    with spawn.Pool(jobs, initializer=_plain_start, initargs=(str(inductor_cache),)) as pool:
        for _, calls in pool.imap_unordered(plain_case, cases, chunksize=1):
            for path, seconds in calls.items():
                busy[path] += seconds
    return time.perf_counter() - start, dict(busy)


def busy_line(label: str, wall: float, busy: dict[str, float]) -> str:
    paths = ", ".join(f"{p} {busy.get(p, 0.0):.0f}" for p in PATHS)
    return f"{label}\twall {wall:.0f} s\tbusy {sum(busy.values()):.0f} s ({paths})"


def main() -> None:
    raw = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=raw)
    parser.add_argument("--bin", type=Path, default=REPO / "build" / "tests" / "capmap")
    parser.add_argument("--cases-from", type=Path, required=True, help="a kept store of a real run")
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
    args = parser.parse_args()
    if args.warm and args.cache is None:
        sys.exit("--warm: name the warm folder with --cache")
    if not args.cases_from.is_file():
        sys.exit(f"{args.cases_from}: no such store")
    case_seconds: dict[str, float] = defaultdict(float)
    for case, _, _, seconds in records(args.cases_from):
        case_seconds[case] += seconds
    order = sorted(case_seconds, key=lambda c: -case_seconds[c])
    cases = order[: args.top] if args.top > 0 else order
    print(f"{len(cases)} cases of {args.cases_from.name}, {args.jobs} jobs", flush=True)

    with tempfile.TemporaryDirectory() as tmp:
        cache = args.cache or Path(tmp) / "cache"
        if not args.warm:
            wall = capmap_run(args.bin, cases, args.jobs, cache, _store(tmp, "cold"), args.baseline)
            print(busy_line("capmap cold", wall, _kept(_store(tmp, "cold"), args.keep)), flush=True)
        slots = slot_folders(cache)
        if not slots:
            sys.exit(f"{cache}: no inductor folder of a capmap run in it")
        for k in range(1, args.rounds + 1):
            store = _store(tmp, f"warm-{k}")
            wall = capmap_run(args.bin, cases, args.jobs, cache, store, args.baseline)
            print(busy_line(f"capmap warm {k}", wall, _kept(store, args.keep)), flush=True)
            wall, busy = plain_round(cases, args.jobs, slots[0])
            print(busy_line(f"user calls warm {k}", wall, busy), flush=True)


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

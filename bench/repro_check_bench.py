"""`capmap repro --check`'s scripts run each as a user runs one (`python SCRIPT`) against the
check's way (forked from one launcher that imported torch and the exporters once): seconds,
CPU seconds and whether both give the same outcome line.

    PYTHONPATH=python python bench/repro_check_bench.py [--bin build/tests/capmap]
        [--registry tests/python/registries/repro_cases.py] [--paths export,onnx,compile]

Surveys the registry into a fresh store with `--repro` (its scripts beside the store), then runs
every script both ways, plain first.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from capmap.repro.check import DEFAULT_MEMORY_LIMIT, Outcome, ScriptLauncher, run_script

REPO = Path(__file__).resolve().parents[1]


def timed(label: str, scripts: list[Path], run_all: Callable[[list[Path]], list[Outcome]]) -> list[str]:
    """Wall and CPU seconds of `run_all`; CPU counts every process it waited for, and theirs."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    lines = [o.line() for o in run_all(scripts)]
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    print(f"{label:<28} {wall:7.1f} s wall {cpu:7.1f} s CPU ({wall / len(scripts):.2f} s a script)")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bin", type=Path, default=REPO / "build" / "tests" / "capmap")
    registries = REPO / "tests" / "python" / "registries"
    parser.add_argument("--registry", type=Path, default=registries / "repro_cases.py")
    parser.add_argument("--paths", default="export,onnx,compile")
    parser.add_argument("--timeout", type=float, default=300)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        registry = work / args.registry.name
        shutil.copy(args.registry, registry)
        env = dict(os.environ, TMPDIR=str(work))
        argv = [str(args.bin), "run", str(registry), "--store", str(work / "out" / "results.db")]
        argv += ["--paths", args.paths, "--repro", "--jobs", "2"]
        done = subprocess.run(argv, cwd=work, env=env, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            sys.stderr.write(done.stderr[-3000:])
            return 1
        scripts = sorted((work / "out" / "repro").glob("*.py"))
        print(f"{len(scripts)} repro scripts of {registry.name} ({args.paths})")

        def plain_runs(scripts: list[Path]) -> list[Outcome]:
            return [run_script(s, args.timeout, DEFAULT_MEMORY_LIMIT) for s in scripts]

        def forked_runs(scripts: list[Path]) -> list[Outcome]:
            # The launcher's start-up is counted, and its CPU once it is waited for.
            launcher = ScriptLauncher()
            try:
                return [run_script(s, args.timeout, DEFAULT_MEMORY_LIMIT, launcher=launcher) for s in scripts]
            finally:
                launcher.close()

        plain = timed("python SCRIPT, one by one", scripts, plain_runs)
        forked = timed("forked from the launcher", scripts, forked_runs)
    same = sum(a == b for a, b in zip(plain, forked, strict=True))
    print(f"same outcome line: {same} of {len(scripts)}")
    for script, a, b in zip(scripts, plain, forked, strict=True):
        if a != b:
            print(f"  {script.name}: plain {a!r}, forked {b!r}")
    return 0 if same == len(scripts) else 1


if __name__ == "__main__":
    sys.exit(main())

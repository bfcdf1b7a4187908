"""The README's test command as CI runs it, timed phase by phase.

    python bench/test_command.py [--runs N] [--load K] [--keep]

Clones the committed HEAD into a new folder (a read-only copy of ../shared beside it, as CI lays
it out), runs `make test` there with CI=true and no standard input, and prints the wall time of
each phase (the set-up, the C++ build, ctest, the source checks, the ExecuTorch environment,
pytest), the total, pytest's closing line and its ten slowest tests. `--load K` keeps K CPU-bound
processes running beside it, as a busy CI machine would. On a machine already set up the set-up
installs nothing and the kept builds (ccache, the wheel of a source digest) are warm: run it once
after `rm -r ~/.cache/capmap` for a machine's first run.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PHASE = re.compile(r"^test: (.+) took (\d+) s$")
SLOW = re.compile(r"^\d+\.\d+s (call|setup|teardown) ")
SUMMARY = re.compile(r"\d+ (passed|failed).* in [\d.]+s")


def spin() -> None:
    while True:
        pass


def one_run(base: Path, index: int) -> tuple[int, float, str]:
    folder = base / f"run{index}"
    folder.mkdir()
    (folder / "shared").symlink_to(base / "shared")
    subprocess.run(["git", "clone", "-q", str(REPO), str(folder / "main")], check=True)
    log = folder / "test.log"
    env = {**os.environ, "CI": "true"}
    started = time.monotonic()
    with log.open("w") as out:
        code = subprocess.run(
            ["make", "test"], cwd=folder / "main", stdin=subprocess.DEVNULL, stdout=out,
            stderr=subprocess.STDOUT, env=env, check=False,
        ).returncode  # fmt: skip
    return code, time.monotonic() - started, log.read_text(errors="replace")


def report(code: int, wall: float, text: str) -> None:
    lines = text.splitlines()
    setup_end = next((i for i, line in enumerate(lines) if line.startswith("setup: done")), None)
    print(f"  verdict: {'passed' if code == 0 else f'FAILED (exit {code})'}; wall {wall / 60:.1f} min")
    phases = [(m.group(1), int(m.group(2))) for m in map(PHASE.match, lines) if m]
    if setup_end is not None and phases:
        tested = sum(seconds for _, seconds in phases)
        print(f"  {'the set-up (make setup), by difference':<60} {wall - tested:7.0f} s")
    for name, seconds in phases:
        print(f"  {name:<60} {seconds:7d} s")
    summary = [line for line in lines if SUMMARY.search(line)]
    if summary:
        print(f"  pytest: {summary[-1].strip('= ')}")
    slow = [line for line in lines if SLOW.match(line)][:10]
    if slow:
        print("  the ten slowest tests:")
        for line in slow:
            print(f"    {line}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1, help="runs one after the other (default 1)")
    parser.add_argument("--load", type=int, default=0, help="CPU-bound processes beside each run")
    parser.add_argument("--keep", action="store_true", help="keep the clones and logs")
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="capmap-test-command-"))
    shutil.copytree(REPO.parent / "shared", base / "shared", symlinks=True)
    subprocess.run(["chmod", "-R", "a-w", str(base / "shared")], check=True)
    head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                          text=True, check=True).stdout.strip()  # fmt: skip
    print(f"make test from fresh clones of {head}, CI=true, {args.load} CPU-bound processes beside it")
    failed = 0
    for index in range(1, args.runs + 1):
        spinners = [multiprocessing.Process(target=spin, daemon=True) for _ in range(args.load)]
        for process in spinners:
            process.start()
        try:
            code, wall, text = one_run(base, index)
        finally:
            for process in spinners:
                process.terminate()
        print(f"run {index}:")
        report(code, wall, text)
        failed += code != 0
    if args.keep:
        print(f"logs: {base}/run*/test.log")
    else:
        subprocess.run(["chmod", "-R", "u+w", str(base)], check=False)
        shutil.rmtree(base, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

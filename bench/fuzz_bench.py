"""Runs every libFuzzer target of tests/fuzz/ for a set time and reports executions, coverage and
findings.

    cmake --preset fuzz              # build/h-fuzz: CAPMAP_FUZZ=ON with clang++ (CMakePresets.json)
    cmake --build build/h-fuzz --target capmap_fuzz_snapshot capmap_fuzz_kornia_file \\
        capmap_fuzz_store capmap_fuzz_worker_event capmap_fuzz_cause_rules
    python3 bench/fuzz_bench.py [--build build/h-fuzz] [--seconds 600] [--targets snapshot,store]
        [--nice 15] [--keep-findings]
    python3 bench/fuzz_bench.py --cli build/tests/capmap [--seconds 60]   # no clang needed

Each target starts from its committed seeds (tests/fuzz/corpus/TARGET) and past findings
(tests/fuzz/regressions/TARGET); what it learns goes to a scratch corpus, so the repository is
not touched unless --keep-findings copies the findings (crash-*, leak-*, timeout-*, oom-*) into
tests/fuzz/regressions/TARGET, where the test command replays them. A finding is a crash, a
sanitizer report (AddressSanitizer, UndefinedBehaviorSanitizer), an exception other than a
reader's one-line refusal (an internal error), a refusal that does not name its input, a
timeout or running out of memory. Exit status 1 when any target found something.

--cli BINARY fuzzes the `capmap` commands that read each kind of file instead (bench/cli_mutator.py:
structural mutations of the seeds, one process per input; no coverage figure, no sanitizers; the
worker_event target has no command of its own and is skipped). It needs only a normal build.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from cli_mutator import fuzz_cli

REPO = Path(__file__).resolve().parents[1]
TARGETS = ["snapshot", "kornia_file", "store", "worker_event", "cause_rules"]
FINDING_PREFIXES = ("crash-", "leak-", "timeout-", "oom-", "slow-unit-")


@dataclass
class TargetFigures:
    target: str
    seconds: float = 0.0
    executions: int = 0
    execs_per_second: int = 0
    coverage: int = 0  # edges (libFuzzer's `cov`)
    features: int = 0  # libFuzzer's `ft`
    corpus_units: int = 0
    exit_code: int = 0
    findings: list[str] = field(default_factory=list)


def last_int(pattern: str, text: str) -> int:
    found = re.findall(pattern, text)
    return int(found[-1]) if found else 0


def run_target(binary: Path, target: str, seconds: int, nice: int, scratch: Path) -> TargetFigures:
    corpus = scratch / "corpus" / target
    artifacts = scratch / "findings" / target
    corpus.mkdir(parents=True, exist_ok=True)
    artifacts.mkdir(parents=True, exist_ok=True)
    seeds = [REPO / "tests" / "fuzz" / "corpus" / target, REPO / "tests" / "fuzz" / "regressions" / target]
    command = [
        "nice",
        "-n",
        str(nice),
        str(binary),
        str(corpus),
        *[str(s) for s in seeds if s.is_dir()],
        f"-max_total_time={seconds}",
        f"-artifact_prefix={artifacts}/",
        "-print_final_stats=1",
        "-timeout=20",
        "-rss_limit_mb=2048",
        "-max_len=65536",
    ]
    started = time.monotonic()
    # libFuzzer stops at its first finding; the time limit keeps a hung run from lasting for ever.
    done = subprocess.run(command, capture_output=True, text=True, errors="replace", timeout=seconds + 300)
    log = done.stdout + done.stderr
    (scratch / f"{target}.log").write_text(log)
    figures = TargetFigures(target=target, seconds=round(time.monotonic() - started, 1))
    figures.exit_code = done.returncode
    figures.executions = last_int(r"stat::number_of_executed_units:\s*(\d+)", log)
    figures.execs_per_second = last_int(r"stat::average_exec_per_sec:\s*(\d+)", log)
    figures.coverage = last_int(r"\bcov: (\d+)", log)
    figures.features = last_int(r"\bft: (\d+)", log)
    figures.corpus_units = last_int(r"\bcorp: (\d+)", log)
    figures.findings = sorted(p.name for p in artifacts.iterdir() if p.name.startswith(FINDING_PREFIXES))
    if done.returncode != 0 and not figures.findings:
        figures.findings.append(f"exit {done.returncode} (see {scratch / (target + '.log')})")
    return figures


def run_cli_target(binary: Path, target: str, seconds: int, nice: int, scratch: Path) -> TargetFigures | None:
    if target == "worker_event":
        return None
    seeds = [
        p
        for folder in ("corpus", "regressions")
        for p in sorted((REPO / "tests" / "fuzz" / folder / target).glob("*"))
        if p.is_file()
    ]
    rules_snapshot = REPO / "tests" / "fuzz" / "corpus" / "snapshot" / "minimal.json"
    started = time.monotonic()
    cli = fuzz_cli(binary, target, seeds, seconds, scratch, rules_snapshot, time.monotonic, nice)
    figures = TargetFigures(target=target, seconds=round(time.monotonic() - started, 1))
    figures.executions = cli.executions
    figures.execs_per_second = int(cli.executions / max(figures.seconds, 0.001))
    figures.corpus_units = len(seeds)
    figures.findings = sorted(set(cli.findings or []))
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--build", type=Path, default=REPO / "build" / "h-fuzz", help="CAPMAP_FUZZ=ON build folder"
    )
    parser.add_argument("--seconds", type=int, default=600, help="time per target (default 600)")
    parser.add_argument("--targets", default=",".join(TARGETS), help="comma-separated targets")
    parser.add_argument("--nice", type=int, default=0, help="niceness of the fuzzing processes")
    parser.add_argument(
        "--keep-findings", action="store_true", help="copy findings to tests/fuzz/regressions/"
    )
    parser.add_argument("--scratch", type=Path, help="folder for the grown corpus, logs and findings")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--cli", type=Path, help="fuzz this capmap binary's commands instead (no clang)")
    args = parser.parse_args()

    scratch = args.scratch or Path(tempfile.mkdtemp(prefix="capmap-fuzz-"))
    results: list[TargetFigures] = []
    for target in [t for t in args.targets.split(",") if t]:
        if target not in TARGETS:
            parser.error(f"unknown target {target!r}; known: {', '.join(TARGETS)}")
        if args.cli:
            figures = run_cli_target(args.cli, target, args.seconds, args.nice, scratch)
            if figures is None:
                continue
        else:
            binary = args.build / f"capmap_fuzz_{target}"
            if not binary.exists():
                parser.error(f"{binary}: not built (see the commands at the top of this script)")
            figures = run_target(binary, target, args.seconds, args.nice, scratch)
        results.append(figures)
        if args.keep_findings:
            kept = REPO / "tests" / "fuzz" / "regressions" / target
            for name in figures.findings:
                source = scratch / "findings" / target / name
                if source.is_file():
                    kept.mkdir(parents=True, exist_ok=True)
                    shutil.copy(source, kept / name)
        if not args.json:
            print(
                f"{target:13} {figures.seconds:7.1f} s  {figures.executions:>10} execs "
                f"({figures.execs_per_second}/s)  cov {figures.coverage}  ft {figures.features}  "
                f"corpus {figures.corpus_units}  findings {len(figures.findings)}"
                + (f": {', '.join(figures.findings)}" if figures.findings else ""),
                flush=True,
            )
    if args.json:
        print(json.dumps([asdict(r) for r in results], indent=2))
    else:
        print(f"scratch (grown corpus, logs, findings): {scratch}")
    return 1 if any(r.findings for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())

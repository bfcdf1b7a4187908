"""`python -m capmap.repro`: repro scripts for failing cells, and the check that they reproduce.

    python -m capmap.repro NAME [--path P] [--store DB|SNAPSHOT] [-o FILE] [--registry R]...
    python -m capmap.repro --check [--store DB|SNAPSHOT] [--sample N] [--timeout S] [--dir D]
    python -m capmap.repro --all [--store DB|SNAPSHOT] [--dir D] [--follow]

`capmap repro` runs this module (see docs/reference/repro.md). Exit codes: 0 done (and,
with --check, every checked cell reproduced), 1 some cell did not reproduce, 2 bad input.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
from pathlib import Path
from typing import Any

from capmap.cases import Case, RegistryError
from capmap.repro.cells import Cell, RunInfo, Source, read_source
from capmap.repro.follow import ScriptWriter, follow


def _parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m capmap.repro", description=__doc__)
    parser.add_argument("name", nargs="?", help="case to write a script for")
    parser.add_argument("--path", help="capture path: any the run announced but eager (default: all failing)")
    parser.add_argument("--store", default="capmap-results/results.db", help="results store or snapshot JSON")
    parser.add_argument("-o", "--output", help="script file (one path only), or a folder for the scripts")
    parser.add_argument("--registry", action="append", default=[], help="registry the cases come from")
    parser.add_argument("--run-key", default="", help="run key (default: the store's newest)")
    parser.add_argument("--check", action="store_true", help="run every failing cell's script and judge it")
    parser.add_argument("--all", action="store_true", help="write the script of every failing cell")
    parser.add_argument(
        "--follow",
        action="store_true",
        help="with --all and a store: keep writing as failing records arrive, until stdin closes",
    )
    parser.add_argument("--sample", type=int, default=0, help="check only N failing cells, chosen at random")
    parser.add_argument("--unchecked", action="store_true", help="check only cells without a verdict yet")
    parser.add_argument("--timeout", type=float, default=420.0, help="seconds a script may run")
    parser.add_argument("--dir", help="folder for the scripts (default: repro/ beside the store)")
    parser.add_argument(
        "--results-fd", type=int, default=-1, help="write one JSON line per checked cell here"
    )
    args = parser.parse_args(argv)
    modes = sum(bool(x) for x in (args.name, args.check, args.all))
    if modes != 1:
        parser.error("give a case NAME, or --check, or --all")
    if args.output and not args.name:
        parser.error("-o goes with a case NAME")
    if args.follow and not args.all:
        parser.error("--follow goes with --all")
    if args.sample < 0:
        parser.error("--sample must be positive")
    return args


def _load_cases(specs: list[str]) -> dict[str, Case]:
    from capmap import registry

    return registry.load(specs).by_name()


def _registries(args: argparse.Namespace, run: RunInfo) -> list[str]:
    from capmap.registry import DEFAULT_REGISTRY

    return args.registry or run.registries or [DEFAULT_REGISTRY]


def _case_for(cases: dict[str, Case], cell: Cell, specs: list[str]) -> Case:
    found = cases.get(cell.case)
    if found is None:
        raise RegistryError(
            f"{cell.case}: no such case in {', '.join(specs)} (name the registry with --registry)"
        )
    return found


def _script_dir(args: argparse.Namespace, source_file: Path) -> Path:
    return Path(args.dir) if args.dir else source_file.resolve().parent / "repro"


def _write_one(args: argparse.Namespace, source: Source) -> int:
    from capmap.repro.script import file_stem, write_script

    capture = source.run.capture_paths()
    if args.path and args.path not in capture:
        known = ", ".join(capture)
        raise RegistryError(f"--path {args.path}: not a capture path of this run (its paths: {known})")
    cells = [c for c in source.find(args.name) if c.path in capture]
    if not cells:
        raise RegistryError(f"{source.file}: no record of case {args.name!r}")
    if args.path:
        cells = [c for c in cells if c.path == args.path]
        if not cells:
            raise RegistryError(f"{source.file}: case {args.name!r} has no {args.path} record")
    else:
        cells = [c for c in cells if c.failing]
        if not cells:
            raise RegistryError(
                f"{source.file}: case {args.name!r} fails on no path (choose one with --path)"
            )
    # -o names a file, or a folder (one that exists, or a name ending in /) that gets each
    # script under its usual name.
    folder = (
        Path(args.output)
        if args.output and (Path(args.output).is_dir() or args.output.endswith("/"))
        else None
    )
    if args.output and folder is None and len(cells) > 1:
        raise RegistryError(
            f"-o {args.output}: case {args.name!r} fails on several paths; choose one with --path, "
            "or give a folder"
        )
    specs = _registries(args, source.run)
    case = _case_for(_load_cases(specs), cells[0], specs)
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
    for cell in cells:
        name = Path(f"{file_stem(cell.case, cell.path)}.py")
        out = folder / name if folder is not None else Path(args.output) if args.output else name
        write_script(case, cell, source.run, out)
        print(f"wrote {out} (expected outcome: {cell.status})")
    return 0


def _write_all(args: argparse.Namespace, source: Source) -> int:
    cells = source.failing()
    if not cells:
        print(f"repro: no failing cell in {source.file}")
        return 0
    writer = ScriptWriter(source.run, _registries(args, source.run), _script_dir(args, source.file))
    for cell in cells:
        writer.write(cell)
    print(f"repro: wrote {writer.written} scripts of failing cells to {writer.folder}")
    return 0


def _follow(args: argparse.Namespace) -> int:
    store = Path(args.store)
    folder = _script_dir(args, store)
    return follow(store, args.run_key, folder, lambda run: _registries(args, run))


def _check(args: argparse.Namespace, source: Source) -> int:
    from capmap.repro.check import CHECK_FAILED, ScriptLauncher, limits_for, reproduces, run_script
    from capmap.repro.script import file_stem, write_script

    cells = source.failing()
    if args.unchecked:
        cells = [c for c in cells if not c.checked]
    if args.sample and args.sample < len(cells):
        # A fixed seed: the same store gives the same sample.
        cells = sorted(random.Random(0).sample(cells, args.sample), key=lambda c: (c.case, c.path))
    if not cells:
        print(f"repro check: no failing cell to check in {source.file}")
        return 0
    specs = _registries(args, source.run)
    cases = _load_cases(specs)
    folder = _script_dir(args, source.file)
    results = os.fdopen(args.results_fd, "w", buffering=1) if args.results_fd >= 0 else None
    failed: list[str] = []
    broken: list[str] = []
    reproduced = 0
    launcher = ScriptLauncher()
    for cell in cells:
        case = cases.get(cell.case)
        check_failed = False
        if case is None:
            line = f"case {cell.case!r} is no longer in {', '.join(specs)}"
            ok, script_text, outcome_line = False, "", line
        else:
            script = write_script(case, cell, source.run, folder / f"{file_stem(cell.case, cell.path)}.py")
            limit, memory = limits_for(cell.record, args.timeout)
            outcome = run_script(script, limit, memory, launcher=launcher)
            ok = reproduces(cell.record, outcome)
            script_text = script.read_text(encoding="utf-8")
            outcome_line = outcome.line()
            check_failed = outcome.status == CHECK_FAILED
            if check_failed:
                broken.append(f"{cell.case} {cell.path}: {outcome.message}")
        reproduced += ok
        mark = "reproduced    " if ok else "NOT reproduced"
        print(f"{mark}  {cell.case} {cell.path}: {outcome_line}", flush=True)
        if not ok and not check_failed:
            failed.append(
                f"{cell.case} {cell.path}: recorded {cell.status}: "
                f"{_first(cell.record.get('message', ''))}; the script gave {outcome_line}"
            )
        if results is not None:
            verdict = _result(source.run.run_key, cell, ok, outcome_line, script_text)
            results.write(json.dumps(verdict, ensure_ascii=False) + "\n")
    launcher.close()
    if results is not None:
        results.close()
    share = 100.0 * reproduced / len(cells)
    print(f"repro check: {reproduced} of {len(cells)} failing cells reproduce ({share:.1f} %)")
    if failed:
        print("not reproduced (the record may come from the harness, not the operator):")
        for line in failed:
            print(f"  {line}")
    if broken:
        print("checks that failed for their own reasons (no verdict on the record):")
        for line in broken:
            print(f"  {line}")
    return 0 if not failed and not broken else 1


def _first(text: Any) -> str:
    return next((s.strip() for s in str(text).splitlines() if s.strip()), "")


def _result(run_key: str, cell: Cell, ok: bool, outcome: str, script: str) -> dict[str, Any]:
    return {
        "run_key": run_key,
        "case": cell.case,
        "path": cell.path,
        "created": cell.created,
        "reproduced": ok,
        "outcome": outcome,
        "script": script,
    }


def main(argv: list[str] | None = None) -> int:
    args = _parse_args(argv)
    try:
        if args.follow:
            return _follow(args)
        source = read_source(Path(args.store), args.run_key)
        if args.check:
            return _check(args, source)
        if args.all:
            return _write_all(args, source)
        return _write_one(args, source)
    except RegistryError as exc:
        print(f"capmap repro: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())

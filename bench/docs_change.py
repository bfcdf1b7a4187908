"""Documentation pull requests: what `--changed-since` selects when a change edits docstrings only.

    PYTHONPATH=python python bench/docs_change.py [--bin build/tests/capmap]
        [--commits ../shared/data/kornia-commits.tsv] [--baseline surveys/kornia/snapshot.json]
        [--kind docs] [--jobs 2] [--run COMMIT...] [--replay replay.tsv]

The stream of Kornia's commits lists each commit's files, not its content. For the commits whose
subject says they are documentation (`docs(...)`, `docs:`), this bench makes such a change for
real: a copy of the installed Kornia in a git checkout, and in each of the commit's files a new
first paragraph in every docstring (so every later line moves, as a new Convention block does).
It checks that the edit leaves each file's code hash (`file_trace.source_code_hash`) as it was,
then prints, side by side:
- `capmap list --changed FILES`: every case that runs one of the files (what a file list gives);
- `capmap list --changed-since HEAD`: the cases whose published results cite a line of the files.
With `--run COMMIT...`, those commits' edits run `--changed-since HEAD` for real (cold compiler
cache, fresh store) and the wall is printed. Whether a commit of the stream touched docstrings
only is not known from its subject: the figures say what such a change costs, not what each
commit did.
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from capmap.tracing.file_trace import source_code_hash
from pr_replay import stream_parser

REPO = Path(__file__).resolve().parents[1]
NOTE = "Convention: a paragraph added by a documentation change.\n\n"


def commits_of_kind(commits: Path, kind: str) -> list[tuple[str, list[str], str]]:
    rows = []
    for line in commits.read_text().splitlines():
        if line.startswith("#") or line.startswith("commit\t"):
            continue
        change, _, files, subject = line.split("\t", 3)
        if subject.lower().startswith((f"{kind}(", f"{kind}:")):
            rows.append((change, files.split(","), subject))
    return rows


def with_docstrings_extended(source: str) -> str:
    """`source` with NOTE opening every triple-quoted docstring: the same code, lines moved."""
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    starts = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                if isinstance(first.value.value, str):
                    starts.append((first.value.lineno, first.value.col_offset))
    for lineno, col in sorted(starts, reverse=True):
        text = lines[lineno - 1]
        head = text[col:]
        prefix = head[: len(head) - len(head.lstrip("rRuU"))]
        quotes = head[len(prefix) : len(prefix) + 3]
        if quotes not in ('"""', "'''"):
            continue
        at = col + len(prefix) + 3
        indent = " " * col
        lines[lineno - 1] = text[:at] + NOTE.replace("\n\n", "\n\n" + indent, 1) + text[at:]
    return "".join(lines)


def kornia_copy(root: Path) -> Path:
    import kornia

    source = Path(kornia.__file__).parent
    shutil.copytree(source, root / "kornia", ignore=shutil.ignore_patterns("__pycache__"))
    git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@localhost", "-C", str(root)]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "installed"], check=True)
    return root


def environment(library: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(library), str(REPO / "python")])
    env.pop("TORCHINDUCTOR_CACHE_DIR", None)
    env.pop("CAPMAP_COMPILE_CACHE", None)
    return env


def listed(binary: Path, env: dict[str, str], library: Path, args: list[str]) -> tuple[int, float]:
    """`capmap list ARGS` in the library's checkout: the cases and the predicted wall."""
    done = subprocess.run(
        [str(binary), "list", *args], env=env, cwd=library, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        sys.exit(f"capmap list failed: {done.stderr.strip()}")
    line = next(line for line in done.stdout.splitlines() if line.startswith("predicted: "))
    fields = dict(item.split("=", 1) for item in line.split()[1:])
    return int(fields["cases"]), float(fields["wall_s"])


def what_if(replay: Path, by_code: dict[str, float], jobs: int) -> None:
    import csv
    import statistics

    rows = list(csv.DictReader(replay.open(), delimiter="\t"))
    column = f"wall_s_{jobs}_jobs"
    before = sorted(float(r[column]) for r in rows)
    after = sorted(by_code.get(r["change"], float(r[column])) for r in rows)
    for label, walls in (("by file", before), ("docs commits by code", after)):
        p90 = walls[min(len(walls) - 1, int(0.9 * len(walls)))]
        print(f"stream of {len(walls)} commits, {label}: median {statistics.median(walls):.0f} s, "
              f"p90 {p90:.0f} s, max {walls[-1]:.0f} s on {jobs} cores (predicted)")  # fmt: skip


def main() -> None:
    parser = stream_parser(__doc__)
    parser.add_argument("--kind", default="docs", help="the conventional-commit type of the subjects to take")
    parser.add_argument("--run", nargs="*", default=[], metavar="COMMIT", help="run these commits for real")
    parser.add_argument(
        "--replay",
        type=Path,
        help="pr_replay.py --out TSV of the whole stream: print its wall distribution with these "
        "commits' walls by code in place of by file (what the stream costs if they touched docstrings only)",
    )
    args = parser.parse_args()
    binary, baseline = args.bin.resolve(), args.baseline.resolve()

    rows = commits_of_kind(args.commits, args.kind)
    print(f"{len(rows)} commits of kind {args.kind!r} in {args.commits.name}")
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        library = kornia_copy(Path(tmp) / "lib")
        env = environment(library)
        for change, files, subject in rows:
            edited = []
            for file in files:
                path = library / file
                if not path.exists():
                    continue
                before = path.read_text()
                after = with_docstrings_extended(before)
                if source_code_hash(after.encode()) != source_code_hash(before.encode()):
                    sys.exit(f"{change}: {file}: the docstring edit changed the code hash")
                path.write_text(after)
                edited.append(path)
            if not edited:
                print(f"{change}: none of its files is in the installed Kornia; left out")
                continue
            common = ["--all", "--baseline", str(baseline), "--jobs", str(args.jobs)]
            by_file = listed(binary, env, library, [*common, "--changed", *map(str, edited)])
            by_code = listed(binary, env, library, [*common, "--changed-since", "HEAD"])
            wall = None
            results.append([change, len(edited), *by_file, *by_code, wall, subject[:60]])
            subprocess.run(["git", "-C", str(library), "checkout", "-q", "--", "."], check=True)

        for row in [r for r in results if r[0] in args.run]:
            change = row[0]
            files = next(f for c, f, _ in rows if c == change)
            for file in files:
                path = library / file
                if path.exists():
                    path.write_text(with_docstrings_extended(path.read_text()))
            with tempfile.TemporaryDirectory() as run_tmp:
                argv = [str(binary), "run", "--all", "--jobs", str(args.jobs), "--store", f"{run_tmp}/r.db",
                        "--no-merge", "--compile-cache", f"{run_tmp}/cache", "--baseline", str(baseline),
                        "--changed-since", "HEAD"]  # fmt: skip
                start = time.perf_counter()
                done = subprocess.run(argv, env=env, cwd=library, capture_output=True, text=True, check=False)
                row[6] = time.perf_counter() - start
            if done.returncode not in (0, 1):
                sys.exit(f"capmap run failed on {change}: {done.stderr[-2000:]}")
            subprocess.run(["git", "-C", str(library), "checkout", "-q", "--", "."], check=True)

    print("commit\tfiles\tcases_by_file\twall_s_by_file\tcases_by_code\twall_s_by_code\trun_wall_s\tsubject")
    for row in sorted(results, key=lambda r: -r[3]):
        run_wall = "" if row[6] is None else f"{row[6]:.0f}"
        print(f"{row[0]}\t{row[1]}\t{row[2]}\t{row[3]:.0f}\t{row[4]}\t{row[5]:.0f}\t{run_wall}\t{row[7]}")
    if args.replay:
        what_if(args.replay, {r[0]: r[5] for r in results}, args.jobs)
    total_file = sum(r[3] for r in results)
    total_code = sum(r[5] for r in results)
    print(f"predicted wall on {args.jobs} cores, all {len(results)} commits: {total_file:.0f} s by file, "
          f"{total_code:.0f} s by code")  # fmt: skip


if __name__ == "__main__":
    main()

"""Code pull requests, function by function: what `--changed-since` selects when a change edits
one function of each file it touches, against what the file list selects.

    PYTHONPATH=python python bench/function_change.py [--bin build/tests/capmap]
        [--commits ../shared/data/kornia-commits.tsv] [--baseline surveys/kornia/snapshot.json]
        [--jobs 2] [--top 31] [--spread 15] [--seed 0] [--replay replay.tsv] [--run COMMIT...]
        [--functions SNAPSHOT] [--no-trace] [--run-matrix COMMIT...] [--keep DIR]

The stream of Kornia's commits lists each commit's files, not its content. For the `--top`
commits whose file list costs most (by the replay of `pr_replay.py --out`, else by
`capmap list --changed`) and `--spread` more spread over the rest, this bench makes a code
change for real: a git copy of the installed Kornia, and in each of the commit's files one
function, drawn at random (`--seed`), gets a statement that does nothing (`_edited = None`) as
its first line, which changes the function's code and nothing else. It prints, side by side:
- `capmap list --changed FILES`: every case that runs one of the files;
- `capmap list --changed-since HEAD --by-function`: the cases whose call enters an edited
  function, or a function that names one, and the seconds the tracing took;
- with `--functions SNAPSHOT` (a survey of the same library version whose cases recorded the
  functions their eager call entered, e.g. `capmap run --all --paths eager`), the same against
  the baseline with those records added: no case is traced, and the seconds the selection took
  beyond the file list's are counted in its wall. `--no-trace` leaves out the traced listing
  (then every commit of the stream can be measured: `--top 400`).
With `--replay`, the stream's wall distribution is printed again with the measured commits'
walls by function in place of by file (the others keep their file walls: an upper bound).
With `--run COMMIT...`, those commits' edits run `--changed-since HEAD` for real, cold and then
warm (the same compiler cache folder), on fresh stores, against the baseline with recorded
functions when `--functions` is given (so they narrow by function from the records, as a PR job
does by default). `--run-matrix COMMIT...` also runs those as the `--matrix` shard jobs
(`--shard I/N --shard-by time`), warm, one after another: the slowest is the matrix's wall.
`--keep DIR` keeps each real run's store (COMMIT-cold.db, -warm.db, -shard-I.db), whose records
say which cases and paths the seconds went to.
A real commit may edit more than one function of a file: the figures say what a one-function
change costs, not what each commit did.
"""

from __future__ import annotations

import ast
import csv
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from docs_change import environment, kornia_copy
from pr_replay import quantile, stream_parser, timed_run

EDIT = "_edited = None"


def editable_functions(source: str) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """The outermost functions (of the module and its classes) with a statement after their
    docstring on a line of its own, where a line can go in front of it."""
    found: list[ast.FunctionDef | ast.AsyncFunctionDef] = []

    def walk(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if _first_statement(node) is not None:
                    found.append(node)
            elif isinstance(node, ast.ClassDef):
                walk(node.body)

    walk(ast.parse(source).body)
    lines = source.splitlines()
    # The statement must start its line (not `def f(...) -> X: ...` ending a signature).
    return [f for f in found if not lines[_line_of(_first_statement(f)) - 1][: _column_of(f)].strip()]


def _line_of(first: ast.stmt | None) -> int:
    assert first is not None
    return min([first.lineno, *(d.lineno for d in getattr(first, "decorator_list", []))])


def _column_of(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    first = _first_statement(node)
    assert first is not None
    return first.col_offset


def _first_statement(node: ast.FunctionDef | ast.AsyncFunctionDef) -> ast.stmt | None:
    body = node.body
    first = body[0]
    if (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    ):
        if len(body) == 1:
            return None
        first = body[1]
    return first if first.lineno > node.lineno else None


def with_function_edited(source: str, rng: random.Random) -> tuple[str, str] | None:
    """`source` with EDIT in front of the first statement of one function drawn by `rng`, and
    the function's name; None when the file has no function to edit."""
    functions = editable_functions(source)
    if not functions:
        return None
    chosen = rng.choice(functions)
    edited = _inserted(source, chosen)
    compile(edited, "<edited>", "exec")  # the edit must leave Python that parses
    return edited, chosen.name


def _inserted(source: str, chosen: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    first = _first_statement(chosen)
    assert first is not None
    lines = source.splitlines(keepends=True)
    # In front of a decorated statement means in front of its decorators.
    lines.insert(_line_of(first) - 1, " " * first.col_offset + EDIT + "\n")
    return "".join(lines)


def packed(seconds: list[float], bins: int) -> list[list[float]]:
    """Longest first into `bins`, each to the least loaded, as capmap's scheduler does."""
    loads: list[list[float]] = [[] for _ in range(bins)]
    for s in sorted(seconds, reverse=True):
        min(loads, key=sum).append(s)
    return loads


def matrix_wall(seconds: list[float], shards: int, jobs: int) -> float:
    """The slowest of `shards` jobs of `jobs` cores, the cases split longest first."""
    return max((max(map(sum, packed(shard, jobs))) for shard in packed(seconds, shards)), default=0.0)


def listed(
    binary: Path, env: dict[str, str], library: Path, args: list[str]
) -> tuple[int, float, list[float]]:
    """`capmap list ARGS` in the library's checkout: cases, predicted wall, and each case's
    expected seconds."""
    done = subprocess.run(
        [str(binary), "list", *args], env=env, cwd=library, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        sys.exit(f"capmap list failed: {done.stderr.strip()}")
    lines = done.stdout.splitlines()
    line = next(line for line in lines if line.startswith("predicted: "))
    fields = dict(item.split("=", 1) for item in line.split()[1:])
    seconds = [
        float(x.split()[-1]) for x in lines[1:] if not x.startswith("predicted: ") and x.split()[-1] != "?"
    ]
    return int(fields["cases"]), float(fields["wall_s"]), seconds


def chosen_commits(
    replay: Path | None, commits: Path, top: int, spread: int
) -> list[tuple[str, list[str], float]]:
    rows = [r for r in csv.reader(commits.open(), delimiter="\t") if r and not r[0].startswith("#")][1:]
    files = {r[0]: r[2].split(",") for r in rows}
    if replay is None:
        sys.exit("--replay TSV (from pr_replay.py --out) is needed to rank the commits")
    ranked = sorted(csv.DictReader(replay.open(), delimiter="\t"), key=lambda r: -float(r["wall_s_2_jobs"]))
    head = ranked[:top]
    rest = ranked[top:]
    step = max(1, len(rest) // max(1, spread))
    picked = head + rest[::step][:spread]
    return [(r["change"], files[r["change"]], float(r["wall_s_2_jobs"])) for r in picked]


def real_run(
    binary: Path,
    env: dict[str, str],
    library: Path,
    baseline: Path,
    jobs: int,
    cache: Path,
    shard: str = "",
    keep: Path | None = None,
) -> float:
    args = ["--baseline", str(baseline), "--changed-since", "HEAD"]
    args += ["--shard", shard, "--shard-by", "time"] if shard else []
    return timed_run(binary, jobs, cache, args, str(library), env, cwd=library, keep=keep)


def has_functions(snapshot: Path) -> bool:
    return any("functions" in c for c in json.loads(snapshot.read_text())["cases"])


def with_functions(baseline: Path, functions: Path, out: Path) -> Path:
    """`baseline` with each case's `functions` taken from the snapshot `functions` (same library
    version): what a survey that records them would have published."""
    snapshot = json.loads(baseline.read_text())
    source = json.loads(functions.read_text())
    if snapshot["header"]["library"].get("version") != source["header"]["library"].get("version"):
        sys.exit(f"{functions}: not a survey of the baseline's library version")
    recorded = {c["name"]: c["functions"] for c in source["cases"] if "functions" in c}
    for c in snapshot["cases"]:
        if c["name"] in recorded:
            c["functions"] = recorded[c["name"]]
    print(f"{len(recorded)} of {len(snapshot['cases'])} baseline cases get recorded functions")
    out.write_text(json.dumps(snapshot))
    return out


# (cases, predicted wall on the jobs, on the matrix)
Selection = tuple[int, float, float]


@dataclass
class Measured:
    """One commit: the selection by file, by function as traced now, by function as recorded."""

    file: Selection
    function: Selection | None
    trace_s: float
    recorded: Selection | None = None
    select_s: float = 0.0  # what the recorded selection took beyond the file list's
    cold_s: float | None = None
    warm_s: float | None = None
    matrix_s: float | None = None  # the slowest of the warm shard jobs

    def best(self) -> Selection:
        by_function = self.recorded or self.function
        assert by_function is not None
        return by_function

    def line(self, matrix: int, jobs: int) -> str:
        f, g, r = self.file, self.function, self.recorded
        out = f"by file {f[0]} cases {f[1]:.0f} s ({matrix}x{jobs}: {f[2]:.0f} s)"
        if g is not None:
            out += f"\tby function {g[0]} cases {g[1]:.0f} s ({g[2]:.0f} s), tracing {self.trace_s:.0f} s"
        if r is not None:
            out += f"\trecorded {r[0]} cases {r[1]:.0f} s ({r[2]:.0f} s), selecting {self.select_s:.1f} s"
        if self.cold_s is not None:
            out += f"\trun cold {self.cold_s:.0f} s warm {self.warm_s or 0:.0f} s"
        if self.matrix_s is not None:
            out += f" matrix warm {self.matrix_s:.0f} s"
        return out


def timed_listing(
    binary: Path, env: dict[str, str], library: Path, args: list[str]
) -> tuple[tuple[int, float, list[float]], float]:
    start = time.perf_counter()
    found = listed(binary, env, library, args)
    return found, time.perf_counter() - start


def main() -> None:
    parser = stream_parser(__doc__)
    parser.add_argument("--matrix", type=int, default=4, help="shard jobs of a CI matrix")
    parser.add_argument("--top", type=int, default=31, help="the commits whose file list costs most")
    parser.add_argument("--spread", type=int, default=15, help="more commits spread over the rest")
    parser.add_argument("--seed", type=int, default=0, help="draws the function edited in each file")
    parser.add_argument("--replay", type=Path, help="pr_replay.py --out TSV of the whole stream")
    parser.add_argument("--run", nargs="*", default=[], metavar="COMMIT", help="run these commits for real")
    parser.add_argument(
        "--run-matrix",
        nargs="*",
        default=[],
        metavar="COMMIT",
        help="of the --run commits, also run these as --matrix shard jobs (warm, one after another)",
    )
    parser.add_argument("--functions", type=Path, help="a survey whose cases recorded their functions")
    parser.add_argument("--no-trace", action="store_true", help="leave out the traced listing")
    parser.add_argument(
        "--keep", type=Path, help="keep each real run's store here (COMMIT-cold.db, -warm.db, -shard-I.db)"
    )
    args = parser.parse_args()
    binary, baseline = args.bin.resolve(), args.baseline.resolve()
    # A baseline that recorded its cases' functions is its own overlay.
    own_functions = args.functions is None and has_functions(baseline)
    if args.no_trace and args.functions is None and not own_functions:
        sys.exit("--no-trace needs --functions, or a baseline whose cases recorded their functions")
    picked = chosen_commits(args.replay, args.commits, args.top, args.spread)
    # The commits to run for real are measured whether or not the ranking picked them.
    everything = chosen_commits(args.replay, args.commits, 10**6, 0)
    picked += [c for c in everything if c[0] in args.run and c not in picked]
    print(
        f"{len(picked)} commits: the {args.top} costliest by file list and {args.spread} spread over the rest"
    )
    results: dict[str, Measured] = {}
    with tempfile.TemporaryDirectory() as tmp:
        recorded_baseline = None
        if args.functions is not None:
            out = Path(tmp) / "recorded.json"
            recorded_baseline = with_functions(baseline, args.functions.resolve(), out)
        elif own_functions:
            recorded_baseline = baseline
        library = kornia_copy(Path(tmp) / "lib")
        env = environment(library)
        git = ["git", "-C", str(library)]
        for change, files, _ in picked:
            rng = random.Random(f"{args.seed}:{change}")
            edited, names = [], []
            for file in files:
                path = library / file
                if not path.exists():
                    continue
                done = with_function_edited(path.read_text(), rng)
                if done is None:
                    continue
                path.write_text(done[0])
                edited.append(path)
                names.append(f"{file.rsplit('/', 1)[-1]}:{done[1]}")
            if not edited:
                print(f"{change}: no function of its files is in the installed Kornia; left out")
                continue
            common = ["--all", "--jobs", str(args.jobs)]
            since = ["--changed-since", "HEAD", "--by-function"]
            by_file, file_s = timed_listing(
                binary, env, library, [*common, "--baseline", str(baseline), "--changed", *map(str, edited)]
            )

            def selection(found: tuple[int, float, list[float]], extra_s: float) -> Selection:
                return (found[0], found[1] + extra_s, matrix_wall(found[2], args.matrix, args.jobs) + extra_s)

            row = Measured(file=selection(by_file, 0.0), function=None, trace_s=0.0)
            if not args.no_trace:
                # What tracing the cases adds to a job: this listing's extra time.
                traced, traced_s = timed_listing(
                    binary, env, library, [*common, "--baseline", str(baseline), *since]
                )
                row.trace_s = max(0.0, traced_s - file_s)
                row.function = selection(traced, row.trace_s)
            if recorded_baseline is not None:
                recorded, recorded_s = timed_listing(
                    binary, env, library, [*common, "--baseline", str(recorded_baseline), *since]
                )
                row.select_s = max(0.0, recorded_s - file_s)
                row.recorded = selection(recorded, row.select_s)
            if change in args.run:
                with tempfile.TemporaryDirectory() as cache_tmp:
                    cache = Path(cache_tmp) / "cache"
                    against = recorded_baseline or baseline

                    def kept(name: str, change: str = change) -> Path | None:
                        return args.keep.resolve() / f"{change}-{name}.db" if args.keep else None

                    row.cold_s = real_run(binary, env, library, against, args.jobs, cache, keep=kept("cold"))
                    row.warm_s = real_run(binary, env, library, against, args.jobs, cache, keep=kept("warm"))
                    if change in args.run_matrix:
                        walls = [
                            real_run(
                                binary,
                                env,
                                library,
                                against,
                                args.jobs,
                                cache,
                                f"{i}/{args.matrix}",
                                keep=kept(f"shard-{i}"),
                            )
                            for i in range(1, args.matrix + 1)
                        ]
                        row.matrix_s = max(walls)
            results[change] = row
            shown = ", ".join(names)[:100]
            print(f"{change}\t{len(edited)} files\t{row.line(args.matrix, args.jobs)}\t{shown}", flush=True)
            subprocess.run([*git, "checkout", "-q", "--", "."], check=True)

    if not results:
        return
    traces = [r.trace_s for r in results.values() if r.function is not None]
    if traces:
        print(
            f"measured {len(results)} commits; tracing adds median {statistics.median(traces):.0f} s, "
            f"max {max(traces):.0f} s (in the walls by function)"
        )
    selecting = [r.select_s for r in results.values() if r.recorded is not None]
    if selecting:
        print(
            f"selecting from recorded functions adds median {statistics.median(selecting):.1f} s, "
            f"max {max(selecting):.1f} s beyond the file list's listing"
        )
    for name, pick in (("file", lambda r: r.file), ("function (best known)", Measured.best)):
        print(f"measured commits by {name}: {sum(pick(r)[0] for r in results.values())} cases")
    if args.replay:
        rows = list(csv.DictReader(args.replay.open(), delimiter="\t"))
        columns = (
            (f"wall_s_{args.jobs}_jobs", 1, f"{args.jobs} cores"),
            (f"wall_s_{args.matrix}x{args.jobs}_jobs", 2, f"{args.matrix} jobs x {args.jobs} cores"),
        )
        for column, at, label in columns:
            before = [float(r[column]) for r in rows]
            after = [
                results[r["change"]].best()[at] if r["change"] in results else float(r[column]) for r in rows
            ]
            for name, walls in (("by file", before), ("measured commits by function", after)):
                print(
                    f"stream of {len(walls)} commits, {name}: median {statistics.median(walls):.0f} s, "
                    f"p90 {quantile(walls, 0.9):.0f} s, max {max(walls):.0f} s on {label} (predicted)"
                )


if __name__ == "__main__":
    main()

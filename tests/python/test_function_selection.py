"""`--changed-since REV`, function by function, on a small library of its own in a git checkout:
an edit of one function selects the cases whose call enters it or a function naming it (a branch
taken only under capture included); an edit outside the functions selects every case of the
file; the functions come from the baseline's records (what each eager call and capture entered),
or with `--by-function` from a trace where the baseline has none; with `--by-file`, without
records, and with `--changed`, selection stays file by file; a lambda target is traced like any."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from types import CodeType, FrameType

import pytest
import torch
from capmap.selection.function_split import compare, split_functions
from capmap.tracing.file_trace import function_key
from capmap_testing import PYTHON_DIR, python_env

OPS = '''\
"""Small operators."""
import torch

FACTOR = 2.0


def _times(x):
    return x * FACTOR


def _rounded(x):
    return torch.round(x)


def scale(x):
    """Scaled."""
    return _times(x)


def shift(x):
    return x + 1.0


def snapped(x):
    # The rounding runs only under capture: the eager call never enters _rounded.
    if torch.compiler.is_compiling():
        return _rounded(x)
    return torch.round(x)


class Shift(torch.nn.Module):
    def forward(self, x):
        return shift(x) - 1.0
'''

# Code only a capture runs: an export-only branch runs its helper as Python (a trace sees it),
# a compile-only branch has dynamo inline it (no frame runs).
CAPTURE = """\
import torch
from toyops import exact


def exported(x):
    if torch.compiler.is_exporting():
        return exact.exact(x)
    return x * 2.0


def compiled(x):
    if torch.compiler.is_compiling() and not torch.compiler.is_exporting():
        return exact.compiled_helper(x)
    return x + 1.0
"""

EXACT = """\
def exact(x):
    return x * 2.0


def compiled_helper(x):
    return x + 1.0
"""

CAPTURE_REGISTRY = """\
import torch
import toyops.capture as capture
from capmap.cases import case, library

library("toyops")
X = torch.arange(6.0).reshape(2, 3) / 4
case("exported", "capture", capture.exported, (X,))
case("compiled", "capture", capture.compiled, (X,))
"""

REGISTRY = """\
import torch
import toyops.ops as ops
from capmap.cases import case, library

library("toyops")
X = torch.arange(6.0).reshape(2, 3) / 4
case("scale", "ops", ops.scale, (X,))
case("shift", "ops", ops.shift, (X,))
case("snapped", "ops", ops.snapped, (X,))
case("Shift", "ops", ops.Shift(), (X,))
case("shift_lambda", "ops", lambda x: ops.shift(x) * 1, (X,), covers="toyops.ops.shift")
"""


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(root), *args], check=True)


@pytest.fixture(scope="module")
def checkout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("toy")
    (root / "toyops").mkdir()
    (root / "toyops" / "__init__.py").write_text("")
    (root / "toyops" / "ops.py").write_text(OPS)
    (root / "registry.py").write_text(REGISTRY)
    (root / "toyops" / "capture.py").write_text(CAPTURE)
    (root / "toyops" / "exact.py").write_text(EXACT)
    (root / "capture_registry.py").write_text(CAPTURE_REGISTRY)
    (root / ".gitignore").write_text("__pycache__/\n")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    return root


def capmap(binary: Path, root: Path, *args: str | Path, **env_vars: str) -> subprocess.CompletedProcess[str]:
    env = python_env(PYTHONPATH=os.pathsep.join([str(root), str(PYTHON_DIR)]), **env_vars)
    argv = [str(binary), *map(str, args)]
    return subprocess.run(argv, capture_output=True, text=True, env=env, cwd=root, timeout=600, check=False)


@pytest.fixture(scope="module")
def baseline(capmap_bin: Path, checkout: Path) -> Path:
    done = capmap(capmap_bin, checkout, "run", "registry.py", "--paths", "eager", "--jobs", "1",
                  "--store", checkout / "out" / "results.db")  # fmt: skip
    assert done.returncode == 0, done.stderr
    snapshot = checkout / "out" / "snapshot.json"
    cases = json.loads(snapshot.read_text())["cases"]
    files = {c["name"]: c["files"] for c in cases}
    assert all("toyops/ops.py" in recorded for recorded in files.values()), files
    # The functions each eager call entered, by file: a capture-only branch's helper is not
    # among them, a method is keyed by its class, a lambda target by what it calls.
    functions = {c["name"]: c["functions"] for c in cases}
    assert functions == {
        "scale": {"toyops/ops.py": "_times scale"},
        "shift": {"toyops/ops.py": "shift"},
        "snapped": {"toyops/ops.py": "snapped"},
        "Shift": {"toyops/ops.py": "Shift.forward shift"},
        "shift_lambda": {"toyops/ops.py": "shift"},
    }
    return snapshot


@pytest.fixture(scope="module")
def untraced_baseline(baseline: Path) -> Path:
    """The baseline as a survey made before functions were recorded: each case is traced."""
    snapshot = json.loads(baseline.read_text())
    for c in snapshot["cases"]:
        del c["functions"]
    older = baseline.with_name("snapshot-without-functions.json")
    older.write_text(json.dumps(snapshot))
    return older


def listed(binary: Path, root: Path, baseline: Path, *extra: str) -> tuple[set[str], str]:
    done = capmap(binary, root, "list", "registry.py", *extra, "--baseline", baseline, "--run-paths", "eager")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    return {line.split()[0] for line in lines[1:] if not line.startswith("predicted: ")}, done.stderr


def edited(root: Path, old: str, new: str) -> None:
    path = root / "toyops" / "ops.py"
    text = path.read_text()
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new))


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        # A function's body: the cases that enter it, and those entering a function naming it.
        ("    return x + 1.0\n", "    return x + 1.0 + 0.0\n", {"shift", "Shift", "shift_lambda"}),
        # A function only a capture branch calls: the case whose call names it.
        (
            "    return torch.round(x)\n\n\ndef scale",
            "    return torch.round(1 * x)\n\n\ndef scale",
            {"snapped"},
        ),
        # Through a chain: _times changed, scale names it.
        ("    return x * FACTOR\n", "    return x * FACTOR * 1\n", {"scale"}),
        # Outside every function: each case that runs the file.
        ("FACTOR = 2.0\n", "FACTOR = 3.0\n", {"scale", "shift", "snapped", "Shift", "shift_lambda"}),
        # A docstring: nothing cites a line of the file, so nothing.
        ('    """Scaled."""\n', '    """Scaled by FACTOR."""\n', set()),
    ],
    ids=["body", "capture-only-branch", "chain", "module-level", "docstring"],
)
def test_an_edit_selects_the_cases_entering_what_changed(
    capmap_bin: Path,
    checkout: Path,
    baseline: Path,
    untraced_baseline: Path,
    old: str,
    new: str,
    expected: set[str],
) -> None:
    path = checkout / "toyops" / "ops.py"
    original = path.read_text()
    try:
        edited(checkout, old, new)
        chosen, stderr = listed(capmap_bin, checkout, baseline, "--changed-since", "HEAD", "--by-function")
        traced, traced_err = listed(
            capmap_bin, checkout, untraced_baseline, "--changed-since", "HEAD", "--by-function"
        )
        # Without a flag: by function where the baseline recorded the functions, else by file.
        default, default_err = listed(capmap_bin, checkout, baseline, "--changed-since", "HEAD")
        unrecorded, _ = listed(capmap_bin, checkout, untraced_baseline, "--changed-since", "HEAD")
        whole, _ = listed(capmap_bin, checkout, baseline, "--changed-since", "HEAD", "--by-file")
        by_hand, _ = listed(capmap_bin, checkout, baseline, "--changed", path)
    finally:
        path.write_text(original)
    # As the baseline recorded the functions, and as a trace finds them now: the same cases.
    assert chosen == expected, stderr
    assert traced == expected, traced_err
    assert default == expected, default_err
    assert unrecorded == whole
    everything = {"scale", "shift", "snapped", "Shift", "shift_lambda"}
    assert by_hand == everything
    assert whole == (everything if expected else set())
    if expected and expected != everything:
        kept = len(everything - expected)
        assert f"{kept} more run a changed file but none of its changed functions" in stderr
        assert "(5 as the baseline recorded, 0 traced now)" in stderr
        assert "cases traced" not in stderr
        assert "(0 as the baseline recorded, 5 traced now)" in traced_err
        assert "5/5 cases traced" in traced_err


def test_a_real_run_carries_what_the_functions_leave_untouched(
    capmap_bin: Path, checkout: Path, baseline: Path, tmp_path: Path
) -> None:
    path = checkout / "toyops" / "ops.py"
    original = path.read_text()
    try:
        edited(checkout, "    return x * FACTOR\n", "    return x * FACTOR * 1\n")
        (tmp_path / "tmp").mkdir()
        done = capmap(capmap_bin, checkout, "run", "registry.py", "--paths", "eager", "--jobs", "1",
                      "--changed-since", "HEAD", "--by-function", "--baseline", baseline,
                      "--store", tmp_path / "r.db", TMPDIR=str(tmp_path / "tmp"))  # fmt: skip
    finally:
        path.write_text(original)
    assert done.returncode == 0, done.stderr
    # Neither the selection's request nor the run's code hashes stay (the compiler cache does).
    left = [p.name for p in (tmp_path / "tmp").iterdir() if not p.name.startswith("capmap-inductor")]
    assert left == []
    snapshot = json.loads((tmp_path / "snapshot.json").read_text())
    carried = {c["name"] for c in snapshot["cases"] if c["paths"]["eager"].get("carried")}
    assert carried == {"shift", "snapped", "Shift", "shift_lambda"}
    # A carried case keeps the functions the baseline recorded; the case that ran records anew.
    functions = {c["name"]: c.get("functions") for c in snapshot["cases"]}
    assert functions["shift"] == {"toyops/ops.py": "shift"}
    assert functions["scale"] == {"toyops/ops.py": "_times scale"}
    assert "1 of 5 cases selected by the change" in done.stderr


def test_a_code_object_is_keyed_by_its_outermost_function() -> None:
    namespace: dict[str, object] = {}
    exec(  # noqa: S102 - a module of test code, compiled to look at its code objects
        textwrap.dedent(
            """
            def outer():
                def inner():
                    return [i for i in range(2)]
                return inner

            class K:
                class Inner:
                    def m(self):
                        return lambda: 1

            at_module = lambda: 0
            """
        ),
        namespace,
    )
    outer, k, at_module = namespace["outer"], namespace["K"], namespace["at_module"]
    inner = outer()  # type: ignore[operator]
    # A comprehension has a code object of its own up to Python 3.11.
    comprehension = next((c for c in inner.__code__.co_consts if hasattr(c, "co_qualname")), None)
    method = k.Inner.m  # type: ignore[attr-defined]
    assert function_key(outer.__code__) == "outer"  # type: ignore[attr-defined]
    assert function_key(inner.__code__) == "outer"
    assert comprehension is None or function_key(comprehension) == "outer"
    assert function_key(method.__code__) == "K.Inner.m"
    assert function_key(method(None).__code__) == "K.Inner.m"  # a lambda inside a method
    assert function_key(at_module.__code__) is None  # type: ignore[attr-defined]  # module level
    assert split_functions(
        b"class K:\n    class Inner:\n        def m(self):\n            pass\n"
    ).hashes.keys() == {"K.Inner.m"}


class _Broken:
    def m(self, x: torch.Tensor) -> torch.Tensor:
        y = x + 1
        torch._dynamo.graph_break()
        return y * 2


def test_the_resume_functions_dynamo_makes_are_not_keyed() -> None:
    # A graph break inside a method makes dynamo run the rest of it as generated code whose
    # name sits inside the method's class; the method itself is what a change would edit.
    seen: set[CodeType] = set()

    def on_call(frame: FrameType, event: str, arg: object) -> None:
        seen.add(frame.f_code)

    compiled = torch.compile(_Broken().m, backend="eager")
    sys.settrace(on_call)
    try:
        compiled(torch.ones(2))
    finally:
        sys.settrace(None)
    resumed = [c for c in seen if c.co_name.startswith("torch_dynamo_resume_in_m")]
    assert resumed, "the graph break made no resume function"
    assert all(c.co_qualname.startswith("_Broken.torch_dynamo_resume_in_m") for c in resumed)
    assert {function_key(c) for c in resumed} == {None}
    assert function_key(_Broken.m.__code__) == "_Broken.m"


def test_splitting_a_file_into_functions() -> None:
    source = textwrap.dedent(
        """
        import functools

        @functools.lru_cache
        def a(x):
            def inner():
                return x
            return inner()

        class K:
            size = 3

            def m(self):
                return a(self.size)
        """
    ).encode()
    functions = split_functions(source)
    assert functions is not None
    assert set(functions.hashes) == {"a", "K.m"}
    assert functions.at(4) == "a"  # the decorator's line
    assert functions.at(7) == "a"  # the nested function's
    assert functions.at(10) is None  # class level
    assert functions.at(14) == "K.m"
    assert "a" in functions.names["K.m"]
    # A nested function's edit is its outer function's; a class attribute is the skeleton's.
    assert compare(source, source.replace(b"return x\n", b"return x + 0\n")).changed == {"a", "K.m"}
    assert compare(source, source.replace(b"size = 3", b"size = 4")).whole
    assert compare(source, source.replace(b"def m(self)", b"def m(self, y=0)")).whole
    assert not compare(source, source.replace(b"import functools\n", b"import functools  # why\n")).changed


def test_import_time_code_that_runs_a_changed_function_makes_the_file_whole() -> None:
    source = b'__all__ = ["make", "use"]\n\ndef make():\n    return 1\n\nTABLE = make()\n'
    edit = source.replace(b"return 1", b"return 2")
    assert compare(source, edit).whole  # TABLE holds what the new make() returned
    # Named only in __all__ (a string), a changed function is not run at import.
    lone = source.replace(b"TABLE = make()", b"TABLE = 1")
    assert compare(lone, lone.replace(b"return 1", b"return 2")).changed == {"make"}


def test_code_only_a_capture_runs_is_recorded_and_selects_the_case(
    capmap_bin: Path, checkout: Path, tmp_path: Path
) -> None:
    snapshots = {}
    for paths in ("eager,export", "eager,compile"):
        store = tmp_path / paths.replace(",", "-") / "results.db"
        done = capmap(capmap_bin, checkout, "run", "capture_registry.py", "--paths", paths, "--jobs", "1",
                      "--store", store)  # fmt: skip
        assert done.returncode == 0, done.stderr
        snapshots[paths] = store.parent / "snapshot.json"
    cases = {p: {c["name"]: c for c in json.loads(f.read_text())["cases"]} for p, f in snapshots.items()}
    # The export runs exact() and dynamo inlines compiled_helper(); the eager calls run neither.
    exported = cases["eager,export"]["exported"]
    assert exported["functions"] == {"toyops/capture.py": "exported", "toyops/exact.py": "exact"}
    assert "toyops/exact.py" in exported["files"]
    compiled = cases["eager,compile"]["compiled"]
    assert compiled["functions"]["toyops/exact.py"] == "compiled_helper"
    assert compiled["paths"]["compile"]["status"] == "ok"
    assert "toyops/exact.py" not in cases["eager,export"]["compiled"]["files"]

    # An edit of exact() selects the exported case, by file and by function; its compile
    # twin runs neither, and compiled_helper's edit selects the compiled case.
    path = checkout / "toyops" / "exact.py"
    for old, new, paths, expected in (
        ("return x * 2.0", "return x * 2.0 + 0.0", "eager,export", {"exported"}),
        ("return x + 1.0", "return x + 1.0 + 0.0", "eager,compile", {"compiled"}),
    ):
        try:
            path.write_text(EXACT.replace(old, new))
            for extra in ((), ("--by-function",), ("--by-file",)):
                done = capmap(capmap_bin, checkout, "list", "capture_registry.py", "--changed-since", "HEAD",
                              *extra, "--baseline", snapshots[paths], "--run-paths", paths)  # fmt: skip
                assert done.returncode == 0, done.stderr
                chosen = {
                    line.split()[0]
                    for line in done.stdout.splitlines()[1:]
                    if not line.startswith("predicted")
                }
                assert chosen == expected, (extra, done.stderr)
        finally:
            path.write_text(EXACT)


@pytest.mark.parametrize("body", ['{"cases": [], "files": []}', "{not json"], ids=["request", "unreadable"])
def test_the_request_file_is_removed_once_read(checkout: Path, tmp_path: Path, body: str) -> None:
    request = tmp_path / "request.json"
    request.write_text(body)
    argv = [
        sys.executable,
        "-m",
        "capmap.selection.function_change",
        "HEAD",
        "--request",
        str(request),
        "--remove-request",
    ]
    env = python_env(PYTHONPATH=str(PYTHON_DIR))
    done = subprocess.run(
        argv, capture_output=True, text=True, env=env, cwd=checkout, timeout=600, check=False
    )
    # Read and gone, answered or not: a capmap killed meanwhile leaves nothing in the temp folder.
    assert not request.exists()
    if body.startswith("{not"):
        assert done.returncode == 2 and "unreadable request" in done.stderr
    else:
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout.splitlines()[-1])["unaffected"] == []

"""`--changed-since REV`, function by function, on a small library of its own in a git checkout:
an edit of one function selects the cases whose call enters it or a function naming it (a branch
taken only under capture included); an edit outside the functions selects every case of the
file; without `--by-function`, and with `--changed`, selection stays file by file; a lambda
target is traced like any."""

from __future__ import annotations

import json
import os
import subprocess
import textwrap
from pathlib import Path

import pytest
from capmap.function_split import compare, split_functions
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
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    return root


def capmap(binary: Path, root: Path, *args: str | Path) -> subprocess.CompletedProcess[str]:
    env = python_env(PYTHONPATH=os.pathsep.join([str(root), str(PYTHON_DIR)]))
    argv = [str(binary), *map(str, args)]
    return subprocess.run(argv, capture_output=True, text=True, env=env, cwd=root, timeout=600, check=False)


@pytest.fixture(scope="module")
def baseline(capmap_bin: Path, checkout: Path) -> Path:
    done = capmap(capmap_bin, checkout, "run", "registry.py", "--paths", "eager", "--jobs", "1",
                  "--store", checkout / "out" / "results.db")  # fmt: skip
    assert done.returncode == 0, done.stderr
    snapshot = checkout / "out" / "snapshot.json"
    files = {c["name"]: c["files"] for c in json.loads(snapshot.read_text())["cases"]}
    assert all("toyops/ops.py" in recorded for recorded in files.values()), files
    return snapshot


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
    capmap_bin: Path, checkout: Path, baseline: Path, old: str, new: str, expected: set[str]
) -> None:
    path = checkout / "toyops" / "ops.py"
    original = path.read_text()
    try:
        edited(checkout, old, new)
        chosen, stderr = listed(capmap_bin, checkout, baseline, "--changed-since", "HEAD", "--by-function")
        whole, _ = listed(capmap_bin, checkout, baseline, "--changed-since", "HEAD")
        by_hand, _ = listed(capmap_bin, checkout, baseline, "--changed", path)
    finally:
        path.write_text(original)
    assert chosen == expected, stderr
    everything = {"scale", "shift", "snapped", "Shift", "shift_lambda"}
    assert by_hand == everything
    assert whole == (everything if expected else set())
    if expected and expected != everything:
        kept = len(everything - expected)
        assert f"{kept} more run a changed file but none of its changed functions" in stderr


def test_a_real_run_carries_what_the_functions_leave_untouched(
    capmap_bin: Path, checkout: Path, baseline: Path, tmp_path: Path
) -> None:
    path = checkout / "toyops" / "ops.py"
    original = path.read_text()
    try:
        edited(checkout, "    return x * FACTOR\n", "    return x * FACTOR * 1\n")
        done = capmap(capmap_bin, checkout, "run", "registry.py", "--paths", "eager", "--jobs", "1",
                      "--changed-since", "HEAD", "--by-function", "--baseline", baseline,
                      "--store", tmp_path / "r.db")  # fmt: skip
    finally:
        path.write_text(original)
    assert done.returncode == 0, done.stderr
    snapshot = json.loads((tmp_path / "snapshot.json").read_text())
    carried = {c["name"] for c in snapshot["cases"] if c["paths"]["eager"].get("carried")}
    assert carried == {"shift", "snapped", "Shift", "shift_lambda"}
    assert "1 of 5 cases selected by the change" in done.stderr


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

"""A registry that names no library (no `capmap.library(...)`) surveys the one package its cases
call, as if it had named it, and a run says so in one line: a lambda or a wrapper of the
registry then records the library files it runs, so a library change can select it. When the
cases come from several packages alike, the run says it could not infer one and names them."""

from __future__ import annotations

import json
import re
from pathlib import Path

from capmap_testing import records, run_capmap

OPS = """\
def blur(x):
    return x * 2


def sharpen(x):
    return x - 1
"""

REGISTRY = """\
import torch
import toylib.ops as ops
from capmap import case
{declare}
X = [torch.ones(2, 4)]


def wrapped(x):
    return ops.sharpen(x) + 1


case("blur_lambda", "toy", lambda x: ops.blur(x) + 1, X)
case("sharpen_wrapper", "toy", wrapped, X)
case("plain_torch", "toy", torch.relu, X)
"""

TWO_LIBRARIES = """\
import torch
import liba.ops
import libb.ops
from capmap import case

X = [torch.ones(2, 4)]

case("from_a", "toy", lambda x: liba.ops.blur(x), X)
case("from_b", "toy", lambda x: libb.ops.blur(x), X)
case("plain_torch", "toy", torch.relu, X)
"""


def write_library(folder: Path, package: str) -> None:
    (folder / package).mkdir(parents=True)
    (folder / package / "__init__.py").write_text("")
    (folder / package / "ops.py").write_text(OPS)


def run_key(stderr: str) -> str:
    found = re.search(r"capmap: run key (\w+),", stderr)
    assert found, stderr
    return found.group(1)


def test_a_registry_naming_no_library_surveys_the_one_its_cases_call(
    capmap_bin: Path, tmp_path: Path
) -> None:
    write_library(tmp_path, "toylib")
    registry = tmp_path / "toylib_cases.py"
    registry.write_text(REGISTRY.format(declare=""))
    store, out = tmp_path / "s.db", tmp_path / "out"
    # Two warm workers load the registry; the run says its line once.
    done = run_capmap(
        capmap_bin, "run", registry, "--paths", "eager", "--store", store, "--out", out,
        "--workers", "2", "-j", "2",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    line = (
        f"capmap: registry {registry} names no library; surveying 'toylib' (inferred from the "
        'cases\' targets); add capmap.library("toylib") to the registry to say so'
    )
    assert done.stderr.splitlines().count(line) == 1, done.stderr
    found = records(store)
    # The lambda and the wrapper of the registry record the library file their call ran.
    for name, function in (("blur_lambda", "blur"), ("sharpen_wrapper", "sharpen")):
        record = found[(name, "eager")]
        assert record["status"] == "ok", record
        assert list(record["files"]) == ["toylib/ops.py"], record
        assert record["functions"] == {"toylib/ops.py": function}, record
    assert found[("plain_torch", "eager")]["files"] == {}
    header = json.loads((out / "snapshot.json").read_text())["header"]
    assert header["library"]["name"] == "toylib"
    assert header["coverage"]["total"] >= 2, header["coverage"]

    # Naming it as the line says changes nothing: the same run key, every record already stored.
    registry.write_text(REGISTRY.format(declare='from capmap import library\nlibrary("toylib")\n'))
    again = run_capmap(capmap_bin, "run", registry, "--paths", "eager", "--store", store, "--no-merge")
    assert again.returncode == 0, again.stderr
    assert "names no library" not in again.stderr
    assert run_key(again.stderr) == run_key(done.stderr)
    assert "3 records already stored" in again.stderr, again.stderr


def test_a_registry_whose_cases_call_two_libraries_alike_says_it_cannot_infer_one(
    capmap_bin: Path, tmp_path: Path
) -> None:
    write_library(tmp_path, "liba")
    write_library(tmp_path, "libb")
    registry = tmp_path / "two_cases.py"
    registry.write_text(TWO_LIBRARIES)
    store = tmp_path / "s.db"
    done = run_capmap(capmap_bin, "run", registry, "--paths", "eager", "--store", store, "--no-merge")
    assert done.returncode == 0, done.stderr
    (line,) = [x for x in done.stderr.splitlines() if "names no library" in x]
    assert line.startswith(f"capmap: registry {registry} names no library and none could be inferred")
    assert "'liba', 'libb'" in line and 'capmap.library("PACKAGE")' in line, line
    # Today's rule stays: each case is attributed to the package that defines its target.
    assert list(records(store)[("from_a", "eager")]["files"]) == ["two_cases.py"]


TORCH_ONLY = """\
import torch
from capmap import case

case("relu", "ops", torch.relu, (torch.randn(2, 3),))
"""


def test_a_registry_of_torch_calls_alone_has_no_coverage_figure(capmap_bin: Path, tmp_path: Path) -> None:
    """torch is no surveyed library: its registry gets no figure of covered torch functions, and
    no worker walks torch's public API for one."""
    registry = tmp_path / "torch_cases.py"
    registry.write_text(TORCH_ONLY)
    out = tmp_path / "out"
    done = run_capmap(
        capmap_bin, "run", registry, "--paths", "eager", "--store", tmp_path / "s.db", "--out", out
    )
    assert done.returncode == 0, done.stderr
    assert "names no library and none could be inferred" in done.stderr
    assert json.loads((out / "snapshot.json").read_text())["header"]["coverage"] is None


WRAPPERS = """\
import torch
import helpers
import wraplib.ops
from capmap import case, deferred

X = [torch.ones(2, 4)]


class Wrapper(torch.nn.Module):
    def forward(self, x):
        return wraplib.ops.blur(x)


case("module_of_the_registry", "toy", Wrapper(), X)
case("helper_beside_it", "toy", lambda x: helpers.twice(x), X)
case("deferred_factory", "toy", deferred(getattr, wraplib.ops, "sharpen"), X)
case("covered", "toy", lambda x: x + 1, X, covers="wraplib.ops.blur")
case("plain_torch", "toy", torch.relu, X)
"""


def test_what_a_registry_s_own_code_names_counts_and_its_helpers_do_not(tmp_path: Path) -> None:
    # A module of the registry, a helper module beside it, a deferred factory, a `covers` name:
    # each counts for the package it leads to, and the helper module is the registry's own.
    import sys

    from capmap import registry, surveyed_library

    write_library(tmp_path, "wraplib")
    (tmp_path / "helpers.py").write_text(
        "import wraplib.ops\n\n\ndef twice(x):\n    return wraplib.ops.blur(x)\n"
    )
    path = tmp_path / "wrap_cases.py"
    path.write_text(WRAPPERS)
    try:
        loaded = registry.load([str(path)])
        found = surveyed_library.infer(loaded.cases, loaded.modules)
        assert found == surveyed_library.Inference("wraplib", (("wraplib", 4),))
        assert loaded.library["name"] == "wraplib"
        assert loaded.notes == [
            f"capmap: registry {path} names no library; surveying 'wraplib' (inferred from the cases' "
            'targets); add capmap.library("wraplib") to the registry to say so'
        ]
    finally:
        registry.forget_loaded()
        sys.path.remove(str(tmp_path))
        for name in [n for n in sys.modules if n in ("helpers", "wraplib") or n.startswith("wraplib.")]:
            del sys.modules[name]

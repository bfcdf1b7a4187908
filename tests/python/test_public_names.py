"""A case's public name is where the surveyed library exports its operator, as the imported
library says: a class defined in a module file deep down and re-exported by the top package is
named under the top package, not under a package that never exported it."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from capmap_testing import PYTHON_DIR, REPO, python_env, run_capmap

# `Thing` is defined in namedlib/sub/array.py and exported by namedlib alone (namedlib.sub
# exports nothing, as monai.transforms.croppad); `Kept` by namedlib.sub and namedlib both.
LIBRARY = {
    "namedlib/__init__.py": (
        "from namedlib._hidden.impl import secret\nfrom namedlib.sub.array import Kept, Thing\n"
    ),
    "namedlib/sub/__init__.py": "from namedlib.sub.array import Kept\n",
    "namedlib/sub/array.py": """\
import torch


class Thing(torch.nn.Module):
    def forward(self, x):
        return x * 2


class Kept(torch.nn.Module):
    def forward(self, x):
        return x + 1


def helper(x):
    return x
""",
    "namedlib/_hidden/__init__.py": "",
    "namedlib/_hidden/impl.py": "def secret(x):\n    return x\n\n\ndef unlisted(x):\n    return x\n",
    "namedlib/later.py": "def thing(x):\n    return x\n",
}

REGISTRY = """\
import torch
from capmap import case, library

from namedlib import Kept, Thing

library("namedlib")

X = torch.ones(2, 3)
case("Thing", "sub", Thing(), [X])
case("Kept", "sub", Kept(), [X])
"""


def write_library(base: Path) -> Path:
    for name, text in LIBRARY.items():
        (base / name).parent.mkdir(parents=True, exist_ok=True)
        (base / name).write_text(text)
    return base


@pytest.fixture
def imported_library(tmp_path: Path) -> Iterator[None]:
    """namedlib imported in this process, and gone again afterwards."""
    sys.path.insert(0, str(write_library(tmp_path)))
    try:
        import namedlib  # noqa: F401

        yield
    finally:
        sys.path.remove(str(tmp_path))
        for name in [n for n in sys.modules if n == "namedlib" or n.startswith("namedlib.")]:
            del sys.modules[name]


def page_names(html: Path) -> dict[str, str]:
    """Operator → the public name the page shows and searches (what page.js derives)."""
    found = re.search(
        r'<script type="application/json" id="capmap-data">(.*?)</script>', html.read_text(), re.S
    )
    assert found, "the page carries no data"
    data: dict[str, Any] = json.loads(found.group(1))
    names = {}
    for section in data["sections"]:
        for index in section["cases"]:
            c = data["cases"][index]
            names[c["o"]] = c.get("pn", f"{data['root']}.{section['title']}.{c['o']}")
    return names


def test_the_page_names_the_package_that_exports_the_operator(capmap_bin: Path, tmp_path: Path) -> None:
    library = write_library(tmp_path / "lib")
    registry = tmp_path / "namedlib_cases.py"
    registry.write_text(REGISTRY)
    store, snapshot, html = tmp_path / "results.db", tmp_path / "snapshot.json", tmp_path / "page.html"
    env = python_env(PYTHONPATH=os.pathsep.join([str(PYTHON_DIR), str(library)]))
    argv = [str(capmap_bin), "run", str(registry), "--paths", "eager", "--jobs", "1",
            "--store", str(store), "--no-merge"]  # fmt: skip
    ran = subprocess.run(argv, capture_output=True, text=True, timeout=300, env=env, check=False)
    assert ran.returncode == 0, ran.stderr[-2000:]
    merged = run_capmap(capmap_bin, "merge", "--store", store, "--out", snapshot)
    assert merged.returncode == 0, merged.stderr
    document = json.loads(snapshot.read_text())
    jsonschema.validate(document, json.loads((REPO / "docs" / "snapshot.schema.json").read_text()))
    cases = {c["name"]: c for c in document["cases"]}
    assert cases["Thing"]["ref"] == "namedlib.sub.array.Thing"
    assert cases["Thing"]["public_ref"] == "namedlib:Thing"
    # Where both export it, the package nearest to the code stays its name.
    assert cases["Kept"]["public_ref"] == "namedlib.sub:Kept"
    rendered = run_capmap(capmap_bin, "render", snapshot, "--html", html)
    assert rendered.returncode == 0, rendered.stderr
    assert page_names(html) == {"Thing": "namedlib.Thing", "Kept": "namedlib.sub.Kept"}


@pytest.mark.usefixtures("imported_library")
def test_the_public_ref_is_read_from_the_imported_modules() -> None:
    from capmap.public_ref import public_ref

    assert public_ref("namedlib.sub.array.Thing") == "namedlib:Thing"
    assert public_ref("namedlib.sub.array.Kept") == "namedlib.sub:Kept"
    # A method keeps its class.
    assert public_ref("namedlib.sub.array.Thing.forward") == "namedlib:Thing.forward"
    # Exported by no package: the module file that defines it still imports.
    assert public_ref("namedlib.sub.array.helper") == "namedlib.sub.array:helper"
    # A private module is no one's public name, unless a public package exports what it holds.
    assert public_ref("namedlib._hidden.impl.secret") == "namedlib:secret"
    assert public_ref("namedlib._hidden.impl.unlisted") is None
    assert public_ref("namedlib.sub.array.Missing") is None
    # A module not imported yet is not imported to name a case.
    assert public_ref("namedlib.later.thing") is None
    assert "namedlib.later" not in sys.modules

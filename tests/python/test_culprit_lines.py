"""A failure on a value the library made earlier names the line that made it, not only the line
where torch gave up: a data-dependent number made by `.tolist()` in one file and used as a size in
another, and a shortcut that reads `.data` of a traced tensor (torch's words for it: a fake
constant to report as a torch bug, or a NumPy conversion in the ONNX optimizer)."""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import torch
from capmap.culprit import note_where_unbacked_values_are_made
from capmap.errors import describe, library_root
from capmap_testing import PYTHON_DIR, python_env, run_capmap

LIBRARY = {
    "culpritlib/__init__.py": "",
    "culpritlib/shapes.py": """\
import torch


def dims(x):
    return torch.arange(2, x.dim()).tolist()  # made line
""",
    "culpritlib/losses.py": """\
import torch

from culpritlib.shapes import dims


def loss(x):
    return x.sum(dim=dims(x))  # used line


class Loss(torch.nn.Module):
    def forward(self, x):
        return loss(x)
""",
    "culpritlib/nets.py": """\
import functools

import torch


class Shortcut(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(2, 2, 1)

    def forward(self, x):
        out = self.conv(x)
        zeros = torch.zeros_like(out)
        return torch.cat([out.data, zeros], 1)  # data line


class SetData(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(2, 2, 1)

    def forward(self, x):
        y = self.conv(x)
        y.data = y.data.clamp(min=0)  # set line
        return y * 2


class Block(torch.nn.Module):
    def __init__(self, downsample):
        super().__init__()
        self.conv = torch.nn.Conv2d(2, 2, 1)
        self.downsample = downsample

    def forward(self, x):
        out = torch.cat([self.conv(x), x], 1)
        return out + self.downsample(x)  # call line


# The block's shortcut is a partial of a method of the net: torch keeps only `forward` frames
# in a node's stack, so no node's stack reaches the `.data` line.
class PaddedNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.block = Block(functools.partial(self._pad, planes=4))

    def _pad(self, x, planes):
        zeros = torch.zeros(x.size(0), planes - x.size(1), *x.shape[2:])
        return torch.cat([x.data, zeros], 1)  # padded line

    def forward(self, x):
        return self.block(x)  # block line
""",
}

REGISTRY = """\
import torch
from capmap import case, library

from culpritlib.losses import Loss
from culpritlib.nets import PaddedNet, SetData, Shortcut

library("culpritlib")

X = torch.rand(2, 2, 3, 3)
case("Loss", "losses", Loss(), [X])
case("Shortcut", "nets", Shortcut(), [X])
case("SetData", "nets", SetData(), [X])
case("PaddedNet", "nets", PaddedNet(), [X])
"""

ONNX = all(importlib.util.find_spec(m) for m in ("onnx", "onnxscript", "onnxruntime"))


def line_of(module: str, marker: str) -> str:
    """`culpritlib/MODULE.py:N`, N the line that carries `# MARKER`."""
    lines = LIBRARY[f"culpritlib/{module}.py"].splitlines()
    return f"culpritlib/{module}.py:{next(i for i, t in enumerate(lines, 1) if f'# {marker}' in t)}"


MADE = line_of("shapes", "made line") + " in dims"
USED = line_of("losses", "used line") + " in loss"
DATA = line_of("nets", "data line") + " in forward"
SET = line_of("nets", "set line") + " in forward"
PADDED = [line_of("nets", "block line") + " in forward", line_of("nets", "call line") + " in forward",
          line_of("nets", "padded line") + " in _pad"]  # fmt: skip


def write_library(base: Path) -> Path:
    for name, text in LIBRARY.items():
        (base / name).parent.mkdir(parents=True, exist_ok=True)
        (base / name).write_text(text)
    return base


@pytest.fixture(scope="module")
def culpritlib(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, ModuleType]]:
    base = write_library(tmp_path_factory.mktemp("lib"))
    sys.path.insert(0, str(base))
    note_where_unbacked_values_are_made()
    try:
        yield {m: importlib.import_module(f"culpritlib.{m}") for m in ("losses", "nets")}
    finally:
        sys.path.remove(str(base))
        for name in [n for n in sys.modules if n == "culpritlib" or n.startswith("culpritlib.")]:
            del sys.modules[name]


def failure(capture: str, module: torch.nn.Module) -> BaseException:
    torch._dynamo.reset()
    x = torch.rand(2, 2, 3, 3)
    try:
        if capture == "compile":
            torch.compile(module, backend="eager", fullgraph=True)(x)
        else:
            torch.export.export(module, (x,), strict=capture == "strict")
    except Exception as exc:  # noqa: BLE001 - the failure is the point
        return exc
    finally:
        torch._dynamo.reset()
    raise AssertionError(f"{capture} of {type(module).__name__} succeeded")


@pytest.mark.parametrize("capture", ["non-strict", "strict", "compile"])
def test_a_data_dependent_value_is_blamed_on_the_line_that_made_it(
    culpritlib: dict[str, ModuleType], capture: str
) -> None:
    module = culpritlib["losses"].Loss()
    info = describe(failure(capture, module), library_root(module))
    assert info.error_type == "GuardOnDataDependentSymNode"
    # The frames are the stack that made the value: the page links their last one.
    assert info.frames[-1] == MADE
    first, second = info.message.splitlines()[:2]
    assert first.startswith("Could not extract specialized integer from data-dependent expression")
    assert second == (
        f"The data-dependent value u0 is made at {MADE} "
        "(`return torch.arange(2, x.dim()).tolist()  # made line`), "
        f"and used at {USED}."
    )


def test_a_data_read_of_a_traced_tensor_is_blamed_on_its_line(culpritlib: dict[str, ModuleType]) -> None:
    for module, line, code in (
        (culpritlib["nets"].Shortcut(), DATA, "return torch.cat([out.data, zeros], 1)  # data line"),
        (culpritlib["nets"].SetData(), SET, "y.data = y.data.clamp(min=0)  # set line"),
    ):
        info = describe(failure("non-strict", module.eval()), library_root(module))
        assert info.frames == [line]
        assert info.message.splitlines()[1].startswith(
            f"Reads `.data` of a traced tensor at {line} (`{code}`)"
        )


def test_a_data_read_in_a_function_the_line_calls_is_blamed_on_its_line(
    culpritlib: dict[str, ModuleType],
) -> None:
    module = culpritlib["nets"].PaddedNet()
    info = describe(failure("non-strict", module.eval()), library_root(module))
    # The stack of the line that uses the constant, then the `.data` line in the function it calls.
    assert info.frames == PADDED
    assert info.message.splitlines()[1] == (
        f"Reads `.data` of a traced tensor at {PADDED[2]} "
        "(`return torch.cat([x.data, zeros], 1)  # padded line`), "
        f"called at {PADDED[1]}: the tracer does not follow `.data`, "
        "so the program keeps a fake constant in its place."
    )


def test_the_snapshot_and_the_page_name_the_culprit_line(capmap_bin: Path, tmp_path: Path) -> None:
    library = write_library(tmp_path / "lib")
    registry = tmp_path / "culpritlib_cases.py"
    registry.write_text(REGISTRY)
    store, snapshot, html = tmp_path / "results.db", tmp_path / "snapshot.json", tmp_path / "page.html"
    paths = "eager,export,onnx,compile" if ONNX else "eager,export,compile"
    env = python_env(PYTHONPATH=os.pathsep.join([str(PYTHON_DIR), str(library)]))
    argv = [str(capmap_bin), "run", str(registry), "--paths", paths, "--jobs", "3",
            "--store", str(store), "--no-merge"]  # fmt: skip
    ran = subprocess.run(argv, capture_output=True, text=True, timeout=600, env=env, check=False)
    assert ran.returncode == 0, ran.stderr[-2000:]
    merged = run_capmap(capmap_bin, "merge", "--store", store, "--out", snapshot)
    assert merged.returncode == 0, merged.stderr
    cases = {c["name"]: c["paths"] for c in json.loads(snapshot.read_text())["cases"]}
    failed = ["export", "onnx"] if ONNX else ["export"]

    for path in failed:
        record = cases["Loss"][path]
        assert record["page_status"] == "fail", (path, record)
        assert record["cause"].startswith("A tensor's values become Python numbers (`.tolist()`)"), path
        assert "list(range(2, x.dim()))" in record["remedy"]
        assert record["frames"][-1] == MADE, path
        assert f"made at {MADE}" in record["message"] and f"used at {USED}" in record["message"]
    # torch.compile breaks the graph at the `.tolist()` line itself.
    assert cases["Loss"]["compile"]["break_reasons"][0]["where"] == MADE

    for name, lines in (("Shortcut", [DATA]), ("SetData", [SET]), ("PaddedNet", PADDED)):
        for path in failed:
            record = cases[name][path]
            assert record["page_status"] == "fail", (name, path, record)
            assert record["cause"].startswith("Reads or assigns `.data` of a traced tensor"), (name, path)
            assert record["category"] == "unsupported-python"
            assert ".detach()" in record["remedy"] and "report" not in record["remedy"].lower()
            assert record["frames"] == lines, (name, path)
    assignment = cases["SetData"]["compile"]
    assert assignment["page_status"] == "ok-breaks"
    assert assignment["cause"].startswith("Assigns to `.data` of a tensor made inside the traced code")
    assert assignment["break_reasons"][0]["where"] == SET

    rendered = run_capmap(capmap_bin, "render", snapshot, "--html", html)
    assert rendered.returncode == 0, rendered.stderr
    locations = page_locations(html)
    assert MADE.split(" in ")[0] in locations["Loss"]
    assert USED.split(" in ")[0] not in locations["Loss"]
    assert DATA.split(" in ")[0] in locations["Shortcut"]


def page_locations(html: Path) -> dict[str, set[str]]:
    """Operator → the locations its cause lines show."""
    found = re.search(
        r'<script type="application/json" id="capmap-data">(.*?)</script>', html.read_text(), re.S
    )
    assert found, "the page carries no data"
    data: dict[str, Any] = json.loads(found.group(1))
    return {c["o"]: {cause.get("l", "") for cause in c["c"]} for c in data["cases"]}

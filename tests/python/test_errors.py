"""Root causes and library frames of real exceptions, raised by a real package and by torch."""

from __future__ import annotations

import importlib
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
import torch
from capmap.errors import FRAME_LIMIT, MESSAGE_LIMIT, clean_message, describe, exception_chain, library_root

TOYLIB_OPS = textwrap.dedent(
    """
    import torch


    def branchy(x):
        if x.sum() > 0:  # branch line
            return x + 1
        return x - 1


    def calls_branchy(x):
        return branchy(x) * 2  # call line


    def recurse(n):
        if n == 0:
            raise ValueError("bottom reached")  # bottom line
        return bounce(n - 1)


    def bounce(n):
        return recurse(n)  # bounce line


    def wraps_failure():
        try:
            recurse(2)
        except ValueError as exc:
            raise RuntimeError("operator failed") from exc


    class Scaler(torch.nn.Module):
        def forward(self, x):
            return x * 2
    """
)


@pytest.fixture(scope="module")
def toylib(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    base = tmp_path_factory.mktemp("lib")
    package = base / "toylib"
    package.mkdir()
    (package / "__init__.py").write_text("from toylib.ops import branchy, calls_branchy, recurse\n")
    (package / "ops.py").write_text(TOYLIB_OPS)
    sys.path.insert(0, str(base))
    try:
        yield importlib.import_module("toylib.ops")
    finally:
        sys.path.remove(str(base))
        for name in [n for n in sys.modules if n == "toylib" or n.startswith("toylib.")]:
            del sys.modules[name]


def line_of(marker: str) -> int:
    return next(i for i, text in enumerate(TOYLIB_OPS.splitlines(), 1) if marker in text)


def raised(fn, *args) -> BaseException:  # noqa: ANN001 - any callable
    with pytest.raises(BaseException) as info:
        fn(*args)
    return info.value


def test_library_root_is_the_top_level_package(toylib: ModuleType) -> None:
    root = library_root(toylib.branchy)
    assert root is not None
    assert Path(root.root).name == "toylib" and root.shows(toylib.__file__)
    assert not root.shows(torch.__file__)
    # A module instance belongs to the package that defines its class.
    assert library_root(toylib.Scaler()) == root


def test_library_root_of_a_single_file_module(tmp_path: Path) -> None:
    (tmp_path / "solo_ops.py").write_text("def f():\n    return 1\n")
    sys.path.insert(0, str(tmp_path))
    try:
        module = importlib.import_module("solo_ops")
        root = library_root(module.f)
        assert root is not None and root.root == str(tmp_path / "solo_ops.py")
        assert root.format(root.root, 2, "f") == "solo_ops.py:2 in f"
    finally:
        sys.path.remove(str(tmp_path))
        del sys.modules["solo_ops"]


def test_the_root_cause_is_the_deepest_explicit_cause(toylib: ModuleType) -> None:
    exc = raised(toylib.wraps_failure)
    assert [type(e).__name__ for e in exception_chain(exc)] == ["RuntimeError", "ValueError"]
    info = describe(exc, library_root(toylib.branchy))
    assert info.error_type == "ValueError"
    assert info.message == "bottom reached"


def test_implicit_context_is_followed_but_not_a_suppressed_one() -> None:
    def implicit() -> None:
        try:
            raise KeyError("inner")
        except KeyError:
            raise TypeError("outer") from None

    def chained() -> None:
        try:
            raise KeyError("inner")
        except KeyError:
            raise TypeError("outer")  # noqa: B904 - the implicit context is what is tested

    assert describe(raised(implicit), None).error_type == "TypeError"
    info = describe(raised(chained), None)
    assert (info.error_type, info.message) == ("KeyError", "'inner'")


def test_a_cause_without_text_gives_way_to_one_that_explains() -> None:
    def wrapper() -> None:
        try:
            raise OSError("disk detached")
        except OSError as exc:
            raise RuntimeError() from exc

    def silent() -> None:
        raise ValueError()

    assert describe(raised(wrapper), None).message == "disk detached"
    assert describe(raised(silent), None).message == "ValueError"


def test_frames_are_the_innermost_library_lines_in_call_order(toylib: ModuleType) -> None:
    info = describe(raised(toylib.recurse, 10), library_root(toylib.branchy))
    assert len(info.frames) == FRAME_LIMIT
    assert info.frames[-2:] == [
        f"toylib/ops.py:{line_of('bounce line')} in bounce",
        f"toylib/ops.py:{line_of('bottom line')} in recurse",
    ]
    assert all(f.startswith("toylib/ops.py:") for f in info.frames)


def test_frames_outside_the_library_are_left_out(toylib: ModuleType) -> None:
    def user_code() -> None:
        toylib.wraps_failure()

    info = describe(raised(user_code), library_root(toylib.branchy))
    assert not any("test_errors.py" in f for f in info.frames)
    assert info.frames[-1].endswith("in recurse")


def test_export_failure_names_the_library_line_that_breaks_capture(toylib: ModuleType) -> None:
    class Model(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return toylib.calls_branchy(x)

    exc = raised(torch.export.export, Model(), (torch.ones(3),))
    info = describe(exc, library_root(toylib.branchy))
    assert info.error_type == "GuardOnDataDependentSymNode"
    assert "data-dependent" in info.message
    assert len(info.message) <= MESSAGE_LIMIT
    assert info.frames[-2:] == [
        f"toylib/ops.py:{line_of('call line')} in calls_branchy",
        f"toylib/ops.py:{line_of('branch line')} in branchy",
    ]


def test_dynamo_failure_takes_frames_from_the_traced_user_stack(toylib: ModuleType) -> None:
    torch._dynamo.reset()
    compiled = torch.compile(toylib.calls_branchy, backend="eager", fullgraph=True)
    info = describe(raised(compiled, torch.ones(3)), library_root(toylib.branchy))
    torch._dynamo.reset()
    assert info.error_type == "Unsupported"
    assert info.message.startswith("Data-dependent branching")
    assert "TORCHDYNAMO_VERBOSE" not in info.message
    assert info.frames == [
        f"toylib/ops.py:{line_of('call line')} in calls_branchy",
        f"toylib/ops.py:{line_of('branch line')} in branchy",
    ]


def test_clean_message_drops_graphs_tensor_values_and_rerun_hints() -> None:
    text = "\n".join(
        [
            "Failed on input tensor([[0.1, 0.2],",
            "        [0.3, 0.4]])",
            "class GraphModule(torch.nn.Module):",
            "    def forward(self, x):",
            "        return x + 1",
            "",
            "while lowering aten.foo",
            "Set TORCHDYNAMO_VERBOSE=1 for the internal stack trace",
            "trailing noise",
        ]
    )
    cleaned = clean_message(text)
    assert cleaned == "Failed on input tensor(...)\n<graph omitted>\nwhile lowering aten.foo"


def test_clean_message_drops_terminal_colours() -> None:
    assert clean_message("step \x1b[96m1/3\x1b[0m failed") == "step 1/3 failed"


def test_clean_message_trims_to_the_limit() -> None:
    cleaned = clean_message("word " * 1000)
    assert len(cleaned) == MESSAGE_LIMIT and cleaned.endswith("...")
    assert clean_message("short") == "short"

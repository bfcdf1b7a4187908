"""The case API and the registry loader, on real registry files, folders and modules."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest
import torch
from capmap import registry
from capmap.cases import RegistryError


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return path


HEADER = "import torch\nfrom torch import nn\nfrom capmap import case, exclude, library\n"


def test_a_case_describes_its_name_group_and_target(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "reg.py",
        HEADER + "case('blur[box-3]', 'filters.blur.box', torch.nn.functional.avg_pool2d, "
        "[torch.rand(1, 1, 6, 6)], {'kernel_size': 3}, note='n', check=False, atol=1e-2, "
        "rtol=0.5, tags=('quick',))\n",
    )
    (c,) = registry.load([str(path)]).cases
    inv = c.inventory()
    assert (inv["operator"], inv["variant"]) == ("blur", "box-3")
    assert (inv["package"], inv["section"]) == ("filters", "blur.box")
    assert inv["where"].endswith("reg.py:4")
    assert inv["tags"] == ["quick"] and inv["check"] is False
    assert (inv["atol"], inv["rtol"], inv["note"], inv["skip"]) == (1e-2, 0.5, "n", None)
    assert inv["ref"].endswith("avg_pool2d")
    out = c.callable()(*c.inputs)
    assert out.shape == (1, 1, 2, 2)  # kwargs are bound: kernel_size=3 on 6x6


def test_a_group_without_a_section_and_a_name_without_a_variant(tmp_path: Path) -> None:
    path = write(tmp_path, "reg.py", HEADER + "case('neg', 'math', torch.neg, [torch.ones(1)])\n")
    inv = registry.load([str(path)]).cases[0].inventory()
    assert (inv["operator"], inv["variant"], inv["package"], inv["section"]) == ("neg", "", "math", "")


@pytest.mark.parametrize(
    ("call", "problem"),
    [
        ("case('x', 'a..b', torch.neg, [])", "group"),
        ("case('x', '', torch.neg, [])", "group"),
        ("case('', 'a', torch.neg, [])", "name"),
        ("case('x[open', 'a', torch.neg, [])", "op[variant]"),
        ("case('x', 'a', nn.ReLU(), [], method='nope')", "nope"),
        (
            "case('x', 'a', 'torch.neg', [torch.ones(2)])",
            "target must be callable (a function, a class or an nn.Module), got a str",
        ),
        ("case('x', 'a', torch.ones(2), [torch.ones(2)])", "target must be callable"),
        (
            "case('x', 'a', torch.neg, torch.ones(2))",
            "inputs must be a list of arguments, got a Tensor: write [x]",
        ),
        ("case('x', 'a', torch.neg, 3)", "inputs must be a list of arguments, got a int"),
        ("case('x', 'a', torch.neg, {'x': torch.ones(2)})", "inputs must be a list of arguments, got a dict"),
        ("case('x', 'a', torch.neg, [torch.ones(2)], kwargs=[1])", "kwargs must be a dict"),
        # Only a skipped case may name no target.
        (
            "case('x', 'a', None, [])",
            "target must be callable (a function, a class or an nn.Module), got a NoneType",
        ),
    ],
)
def test_malformed_cases_name_the_line(tmp_path: Path, call: str, problem: str) -> None:
    path = write(tmp_path, "bad.py", HEADER + call + "\n")
    with pytest.raises(RegistryError) as err:
        registry.load([str(path)])
    assert "bad.py:4" in str(err.value) and problem in str(err.value)


def test_a_skipped_case_may_name_no_target(tmp_path: Path) -> None:
    """As Kornia's own case files list enums and type aliases: a name, a reason, nothing to call."""
    path = write(
        tmp_path,
        "reg.py",
        HEADER + "case('color.ColorMap', 'color', None, [], skip='an enum, not an operator')\n"
        "case('neg', 'math', torch.neg, [torch.ones(1)])\n",
    )
    skipped, plain = registry.load([str(path)]).cases
    assert skipped.inventory()["skip"] == "an enum, not an operator"
    assert plain.inventory()["skip"] is None


def test_modules_are_put_in_eval_mode(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "reg.py",
        HEADER + "m = nn.Sequential(nn.Dropout(0.5), nn.BatchNorm1d(3))\nassert m.training\n"
        "case('seq', 'nn.layers', m, [torch.ones(4, 3)])\n",
    )
    (c,) = registry.load([str(path)]).cases
    assert not c.target.training
    assert not any(sub.training for sub in c.target.modules())
    x = c.inputs[0]
    # Eval mode: dropout is off and batch norm uses its running statistics (mean 0, var 1).
    torch.testing.assert_close(c.callable()(x), x / torch.sqrt(torch.tensor(1 + 1e-5)))


def test_method_calls_that_method_of_the_module(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "reg.py",
        HEADER
        + """
class Scale(nn.Module):
    def forward(self, x):
        return x * 2

    def shrink(self, x, by=4):
        return x / by

case('Scale[shrink]', 'nn.scale', Scale(), [torch.full((2,), 8.0)], {'by': 2}, method='shrink')
case('Scale', 'nn.scale', Scale(), [torch.full((2,), 8.0)])
""",
    )
    shrink, forward = registry.load([str(path)]).cases
    assert shrink.callable()(*shrink.inputs).tolist() == [4.0, 4.0]
    assert forward.callable()(*forward.inputs).tolist() == [16.0, 16.0]
    assert shrink.ref.endswith("Scale")


def test_covers_names_what_a_lambda_case_exercises(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "reg.py",
        HEADER + "case('double', 'math', lambda x: x * 2, [torch.ones(2)], covers='torch.Tensor.mul')\n"
        "case('neg', 'math', lambda x: -x, [torch.ones(2)], covers=['torch.neg', 'torch.Tensor.neg'])\n"
        "case('plain', 'math', lambda x: x, [torch.ones(2)])\n",
    )
    double, neg, plain = registry.load([str(path)]).cases
    assert (double.covers, double.ref, double.inventory()["ref"]) == (("torch.Tensor.mul",),) + (
        "torch.Tensor.mul",
    ) * 2
    assert neg.covers == ("torch.neg", "torch.Tensor.neg") and neg.ref == "torch.neg"
    assert plain.covers == () and "lambda" in plain.ref


@pytest.mark.parametrize("covers", ["'neg'", "['torch.neg', '']", "'torch..neg'", "[3]"])
def test_malformed_covers_name_the_line(tmp_path: Path, covers: str) -> None:
    path = write(tmp_path, "reg.py", HEADER + f"case('x', 'math', torch.neg, [], covers={covers})\n")
    with pytest.raises(RegistryError, match=r"reg\.py:4: case 'x': covers must be dotted public names"):
        registry.load([str(path)])


def test_duplicate_names_name_both_places(tmp_path: Path) -> None:
    first = write(tmp_path / "reg", "a.py", HEADER + "\ncase('dup', 'g', torch.neg, [])\n")
    write(tmp_path / "reg", "b.py", HEADER + "case('dup', 'g', torch.abs, [])\n")
    with pytest.raises(RegistryError) as err:
        registry.load([str(first.parent)])
    message = str(err.value)
    assert "a.py:5" in message and "b.py:4" in message and "'dup'" in message


def test_a_cases_list_is_the_whole_registry(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "listed.py",
        HEADER + "kept = case('kept', 'g', torch.neg, [])\n"
        "dropped = case('dropped', 'g', torch.abs, [])\n"
        "CASES = [kept]\n",
    )
    assert [c.name for c in registry.load([str(path)]).cases] == ["kept"]


def test_a_cases_list_must_hold_cases(tmp_path: Path) -> None:
    path = write(tmp_path, "listed.py", HEADER + "CASES = ['relu']\n")
    with pytest.raises(RegistryError, match="listed.py.*str"):
        registry.load([str(path)])


def test_a_folder_loads_its_files_in_order_and_skips_private_ones(tmp_path: Path) -> None:
    folder = tmp_path / "survey"
    write(folder, "b_second.py", HEADER + "from _helpers import ONES\ncase('two', 'g', torch.neg, [ONES])\n")
    write(folder, "a_first.py", HEADER + "case('one', 'g', torch.neg, [])\nexclude('CONSTANT', 'a number')\n")
    write(folder, "_helpers.py", "import torch\nONES = torch.ones(2)\n")
    write(folder, "_draft.py", HEADER + "case('draft', 'g', torch.neg, [])\n")
    write(folder, "sub/c_third.py", HEADER + "library('toy', docs_url='https://toy/{ref}')\n"
          "case('three', 'g', torch.neg, [])\n")  # fmt: skip
    reg = registry.load([str(folder)])
    assert [c.name for c in reg.cases] == ["one", "two", "three"]
    assert [(e.name, e.reason) for e in reg.excludes] == [("CONSTANT", "a number")]
    assert reg.library["name"] == "toy" and reg.library["docs_url"] == "https://toy/{ref}"
    assert reg.cases[1].inputs[0].tolist() == [1.0, 1.0]


def test_a_module_registry_loads_its_listed_submodules(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "toysurvey"
    write(package, "__init__.py", "from capmap import library\nlibrary('toy')\nREGISTRY_MODULES = ['ops']\n")
    write(package, "ops.py", HEADER + "case('neg', 'math', torch.neg, [torch.ones(1)])\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        reg = registry.load(["toysurvey"])
    finally:
        for name in [n for n in sys.modules if n.startswith("toysurvey")]:
            del sys.modules[name]
    assert [c.name for c in reg.cases] == ["neg"] and reg.library["name"] == "toy"


def test_a_module_registry_loads_again_and_names_places_from_its_import_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Outside the working folder a case's place is relative to the import root (what an
    installed registry shows), and loading twice in one process finds the cases again."""
    package = tmp_path / "roots" / "toyroots"
    write(package, "__init__.py", HEADER + "case('neg', 'math', torch.neg, [torch.ones(1)])\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    monkeypatch.syspath_prepend(str(tmp_path / "roots"))
    try:
        first = registry.load(["toyroots"])
        second = registry.load(["toyroots"])
    finally:
        for name in [n for n in sys.modules if n.startswith("toyroots")]:
            del sys.modules[name]
    assert [c.where for c in first.cases] == ["toyroots/__init__.py:4"]
    assert [c.name for c in second.cases] == ["neg"]


def test_a_helper_module_of_the_registry_folder_reports_its_callers_line(tmp_path: Path) -> None:
    """A case made by a helper in another module of the registry's folder is placed at the line
    of the registry file that called the helper, as a helper in the same file is."""
    package = tmp_path / "toyhelpers"
    write(
        package,
        "_helpers.py",
        HEADER + "def negated(name):\n    case(name, 'math', torch.neg, [torch.ones(1)])\n",
    )
    write(package, "__init__.py", "REGISTRY_MODULES = ['ops']\n")
    write(package, "ops.py", "from ._helpers import negated\n\nnegated('neg')\n\n\nnegated('neg2')\n")
    sys.path.insert(0, str(tmp_path))
    try:
        reg = registry.load(["toyhelpers"])
    finally:
        sys.path.remove(str(tmp_path))
        for name in [n for n in sys.modules if n.startswith("toyhelpers")]:
            del sys.modules[name]
    assert [c.where.rsplit("/", 1)[-1] for c in reg.cases] == ["ops.py:3", "ops.py:6"]


def test_the_bundled_example_registry(tmp_path: Path) -> None:
    reg = registry.load(["capmap.registries.example"])
    names = [c.name for c in reg.cases]
    assert len(names) == len(set(names)) >= 15
    assert reg.library["name"] == "example"
    skipped = [c for c in reg.cases if c.skip]
    assert [c.name for c in skipped] == ["TinyLSTM"]
    for c in reg.cases:
        if isinstance(c.target, torch.nn.Module):
            assert not c.target.training, c.name


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("import capmap_no_such_package_abc\n", ["broken.py:1", "capmap_no_such_package_abc"]),
        ("x = 1\ndef f(:\n", ["broken.py:2", "syntax"]),
        ("import torch\ntorch.ones(2) @ torch.ones(3)\n", ["broken.py:2", "RuntimeError"]),
    ],
)
def test_a_registry_that_fails_to_import_is_one_line(tmp_path: Path, text: str, expected: list[str]) -> None:
    path = write(tmp_path, "broken.py", text)
    with pytest.raises(RegistryError) as err:
        registry.load([str(path)])
    message = str(err.value)
    assert "\n" not in message
    for part in expected:
        assert part in message, message


@pytest.mark.parametrize("spec", ["nowhere.py", "capmap_no_such_registry_module"])
def test_a_registry_that_does_not_exist_is_named(tmp_path: Path, spec: str) -> None:
    with pytest.raises(RegistryError, match=spec.split(".")[0]):
        registry.load([spec])


def test_loading_leaves_no_cases_behind_for_the_next_load(tmp_path: Path) -> None:
    a = write(tmp_path, "a.py", HEADER + "case('a', 'g', torch.neg, [])\n")
    b = write(tmp_path, "b.py", HEADER + "case('b', 'g', torch.neg, [])\n")
    assert [c.name for c in registry.load([str(a)]).cases] == ["a"]
    assert [c.name for c in registry.load([str(b)]).cases] == ["b"]


def test_a_module_registry_that_fails_to_import_names_its_file_and_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A registry given as an importable package names the line of its submodule that failed,
    not just the package."""
    package = tmp_path / "toybroken"
    write(package, "__init__.py", "from capmap import library\nlibrary('toy')\nREGISTRY_MODULES = ['ops']\n")
    write(package, "ops.py", "import torch\n\ntorch.ones(2) @ torch.ones(3)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        with pytest.raises(RegistryError) as err:
            registry.load(["toybroken"])
    finally:
        for name in [n for n in sys.modules if n.startswith("toybroken")]:
            del sys.modules[name]
    message = str(err.value)
    assert "ops.py:3" in message and "RuntimeError" in message, message

"""The same registry means the same cases on every machine: its digests do not change with the
ISA torch dispatches to, MKL's code path or the thread count, and on every CPU with AVX2 the
tensors a case hands the operator are the same bytes. Each setting emulates another CPU in a
subprocess of its own (the settings are read once, when torch loads)."""

from __future__ import annotations

import json
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import torch
from capmap_testing import REPO, RegistryDigests, python_env, registry_digests

# Unlike this machine in each way a user's or a CI runner's can be: torch's kernels for another
# ISA, MKL's for an older instruction set or its reproducible path, one thread or two.
SETTINGS: dict[str, dict[str, str]] = {
    "as is": {},
    "torch default ISA": {"ATEN_CPU_CAPABILITY": "default"},
    "torch AVX2": {"ATEN_CPU_CAPABILITY": "avx2"},
    "MKL SSE4.2": {"MKL_ENABLE_INSTRUCTIONS": "SSE4_2"},
    "MKL CBWR": {"MKL_CBWR": "COMPATIBLE"},
    "one thread": {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"},
    "two threads, MKL AVX2": {"OMP_NUM_THREADS": "2", "MKL_ENABLE_INSTRUCTIONS": "AVX2"},
}
# torch's own vectorised kernels for randn and uniform_(a, b) give other last bits than the
# scalar ones a CPU without AVX2 runs: there the values differ, the digests do not.
SCALAR_ONLY = {"torch default ISA"}
REGISTRIES = {
    "kornia": ("capmap.registries.kornia", REPO / "surveys" / "kornia" / "snapshot.json"),
    "torchmetrics": ("capmap.registries.torchmetrics", REPO / "surveys" / "torchmetrics" / "snapshot.json"),
}


def digests_under(registry: str, setting: dict[str, str], out: Path) -> tuple[dict[str, str], dict[str, str]]:
    done, recipes, values = registry_digests(registry, out, python_env(**setting))
    assert done.returncode == 0, done.stderr[-2000:]
    return recipes, values


@pytest.mark.parametrize("name", sorted(REGISTRIES))
def test_digests_and_inputs_are_the_same_under_every_setting(
    name: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    registry, snapshot_file = REGISTRIES[name]
    # Kornia's digests on this machine as is are a shared fixture (the published survey's test
    # reads them too); every other setting runs here.
    known: dict[str, tuple[dict[str, str], dict[str, str]]] = {}
    if name == "kornia":
        shared: RegistryDigests = request.getfixturevalue("kornia_digests")
        assert shared.recipes, shared.done.stderr[-2000:]
        known["as is"] = (shared.recipes, shared.values)
    labels = [label for label in SETTINGS if label not in known]
    with ThreadPoolExecutor(max_workers=2) as pool:
        computed = pool.map(
            lambda label: digests_under(registry, SETTINGS[label], tmp_path / label.replace(" ", "_")), labels
        )
        found = {**known, **dict(zip(labels, computed, strict=True))}
    published = {c["name"]: c["inputs"] for c in json.loads(snapshot_file.read_text())["cases"]}
    reference_bytes = found["as is"][1]
    assert len(published) > 100
    for label, (recipes, values) in found.items():
        # The published survey's digests, whatever machine computes them.
        changed = sorted(n for n in published if recipes.get(n) != published[n])
        assert not changed, f"{label}: {len(changed)} digests differ from the published ones: {changed[:8]}"
        if label in SCALAR_ONLY:
            # On a CPU without AVX2 the machine as is runs the scalar kernels already.
            if torch.backends.cpu.get_cpu_capability() != "DEFAULT":
                assert values != reference_bytes, f"{label}: the emulation changed no value (not in effect?)"
            continue
        moved = sorted(n for n in values if values[n] != reference_bytes[n])
        assert not moved, f"{label}: {len(moved)} cases get other input bytes: {moved[:8]}"


README_REGISTRY = """\
import torch
from capmap import case

case("relu", "activations", torch.relu, [torch.randn(2, 8)])
case("Linear", "layers", torch.nn.Linear(8, 4), [torch.randn(2, 8)], note="bias on")
case("dropout[train]", "random", torch.nn.functional.dropout, [torch.randn(4)],
     kwargs={"p": 0.5, "training": True}, check=False)
"""


def test_a_registry_that_draws_from_the_global_generators_gets_the_same_digests(tmp_path: Path) -> None:
    """The README's own example draws unseeded at import: every import draws the same numbers,
    so its digests (and its values) repeat, and another draw changes only what follows it."""
    registry = tmp_path / "readme_cases.py"
    registry.write_text(README_REGISTRY)
    first = digests_under(str(registry), {}, tmp_path / "first")
    second = digests_under(str(registry), {"ATEN_CPU_CAPABILITY": "avx2"}, tmp_path / "second")
    assert first == second
    assert len(set(first[0].values())) == 3
    # One more draw before the Linear case: its weights and input come from later numbers, the
    # relu case's from the same ones.
    registry.write_text(
        README_REGISTRY.replace(
            '[torch.randn(2, 8)])\ncase("Linear"', '[torch.randn(2, 8)])\ntorch.rand(1)\ncase("Linear"'
        )
    )
    edited = digests_under(str(registry), {}, tmp_path / "edited")
    assert edited[0]["relu"] == first[0]["relu"]
    assert edited[0]["Linear"] != first[0]["Linear"]


SMALL_LIBRARY = {
    "mylib/__init__.py": "",
    "mylib/a.py": "import torch\n\n\ndef double(x):\n    return x * 2\n",
    "mylib/b.py": "import torch\n\n\ndef shift(x):\n    return x + 1\n",
}
SMALL_REGISTRY = """\
import torch
from capmap import case, library
from mylib import a, b

library("mylib")
case("double", "a", a.double, [torch.randn(2, 8)])
case("shift", "b", b.shift, [torch.randn(2, 8)])
case("shift[wide]", "b", b.shift, [torch.randn(4, 16)])
"""


def test_a_pull_request_runs_again_only_the_cases_of_the_changed_file(
    capmap_bin: Path, tmp_path: Path
) -> None:
    """A small library's registry that draws its inputs from the unseeded global generator: a
    change to `a.py` runs the case that runs `a.py` and carries the two that do not."""
    for rel, text in SMALL_LIBRARY.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    registry = tmp_path / "mylib_cases.py"
    registry.write_text(SMALL_REGISTRY)
    env = python_env()
    env["PYTHONPATH"] = f"{tmp_path}:{env['PYTHONPATH']}"

    def capmap(*args: str | Path) -> subprocess.CompletedProcess[str]:
        argv = [
            str(capmap_bin),
            "run",
            str(registry),
            "--paths",
            "eager,export",
            "--jobs",
            "2",
            *map(str, args),
        ]
        return subprocess.run(
            argv, capture_output=True, text=True, env=env, timeout=600, check=False, cwd=tmp_path
        )

    base = capmap("--store", tmp_path / "base" / "results.db")
    assert base.returncode == 0, base.stderr
    (tmp_path / "mylib/a.py").write_text(SMALL_LIBRARY["mylib/a.py"].replace("x * 2", "x * 3"))
    pr = capmap(
        "--store", tmp_path / "pr" / "results.db", "--changed", tmp_path / "mylib/a.py",
        "--baseline", tmp_path / "base" / "snapshot.json",
    )  # fmt: skip
    assert pr.returncode == 0, pr.stderr
    assert "1 of 3 cases selected by the change" in pr.stderr, pr.stderr
    assert "changed definition" not in pr.stderr
    merged = {c["name"]: c for c in json.loads((tmp_path / "pr" / "snapshot.json").read_text())["cases"]}
    assert not merged["double"]["paths"]["eager"].get("carried")
    assert merged["shift"]["paths"]["eager"].get("carried")
    assert merged["shift[wide]"]["paths"]["export"].get("carried")


@pytest.mark.parametrize("label", ["as is", "torch AVX2", "MKL CBWR"])
def test_an_unchanged_checkout_selects_no_case_on_another_cpu(capmap_bin: Path, label: str) -> None:
    """A pull request's job on a runner with another CPU carries every published cell."""
    done = subprocess.run(
        [str(capmap_bin), "list", "--all", "--changed-auto", "--baseline", str(REGISTRIES["kornia"][1])],
        capture_output=True,
        text=True,
        env=python_env(**SETTINGS[label]),
        cwd=REPO,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "capmap: 0 of 1800 cases selected by the change" in done.stderr, done.stderr[-2000:]

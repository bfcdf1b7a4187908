"""`capmap coverage` on the real kornia: the figure, aliases, exclusions, exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from capmap import coverage, registry
from capmap_testing import python_env, run_capmap

# What the whole Kornia survey reaches on kornia 0.9 (cases plus justified exclusions).
TARGET_PERCENT = 95.0
ONE_CASE = (
    "import kornia.color\nimport torch\nfrom capmap import case, exclude, library\n"
    'library("kornia")\n'
    'case("rgb_to_grayscale", "color", kornia.color.rgb_to_grayscale, [torch.rand(1, 3, 4, 4)])\n'
    'exclude("kornia.onnx", reason="runs ONNX models")\n'
)


@pytest.fixture(scope="module")
def one_case(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A registry with one case and one module exclusion: cheap to load, known coverage."""
    path = tmp_path_factory.mktemp("coverage") / "one_case.py"
    path.write_text(ONE_CASE)
    return path


def run_coverage(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "capmap.coverage", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=python_env(),
        check=False,
    )


def test_whole_kornia_survey_reaches_the_target() -> None:
    done = run_coverage("--json", "--fail-under", str(TARGET_PERCENT))
    assert done.returncode == 0, done.stderr + done.stdout[-2000:]
    report = json.loads(done.stdout)
    assert report["library"] == "kornia"
    assert report["total"] > 950  # kornia.models' subpackages (sam, rt_detr...) count too
    assert report["percent"] >= TARGET_PERCENT
    assert report["methods"]["total"] > 700
    assert report["methods"]["percent"] >= TARGET_PERCENT
    assert report["stray_cases"] == []
    # Operators of modules kornia's __all__ leaves out are reported apart, not as mistakes.
    unlisted = {entry["ref"] for entry in report["unlisted_cases"]}
    assert "kornia.feature.siftdesc.sift_describe" in unlisted


def test_fail_under_decides_the_exit_code(one_case: Path) -> None:
    report = json.loads(run_coverage("--json", str(one_case)).stdout)
    assert 0 < report["percent"] < 5
    # Both figures must reach the threshold: the lower one decides.
    lowest = min(report["percent"], report["methods"]["percent"])
    below, above = lowest + 0.5, lowest - 0.5
    failing = run_coverage("--fail-under", f"{below:.2f}", str(one_case))
    assert failing.returncode == 1
    assert f"under {float(f'{below:.2f}'):g}%" in failing.stderr
    assert run_coverage("--fail-under", f"{above:.2f}", str(one_case)).returncode == 0


def test_text_report_groups_missing_names_by_module(one_case: Path) -> None:
    done = run_coverage(str(one_case))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("kornia 0.9")
    assert "by cases" in lines[0] and "excluded" in lines[0]
    assert lines[1].startswith("methods: ") and "public methods covered" in lines[1]
    so3_line = next(line for line in lines if line.startswith("  kornia.geometry.So3: "))
    assert "inverse" in so3_line and "random" in so3_line
    color_line = next(line for line in lines if line.startswith("  kornia.color: "))
    assert "rgb_to_hsv" in color_line and "rgb_to_grayscale" not in color_line
    assert not any(line.startswith("  kornia.onnx:") for line in lines)


def test_an_alias_counts_once_and_is_covered_by_either_name() -> None:
    callables = coverage.public_callables("kornia")
    tiny_vit = [pc for pc in callables if "kornia.contrib.TinyViT" in pc.names]
    assert len(tiny_vit) == 1
    assert "kornia.models.tiny_vit.TinyViT" in tiny_vit[0].names
    assert tiny_vit[0].canonical == "kornia.contrib.TinyViT"
    assert len({id(pc.obj) for pc in callables}) == len(callables)


def test_a_broken_registry_is_one_line_and_exit_2(tmp_path: Path) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text("import kornia\nraise RuntimeError('no')\n")
    done = run_coverage(str(broken))
    assert done.returncode == 2
    assert done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1
    assert "broken.py" in done.stderr


@pytest.mark.parametrize("threshold, code", [("0", 0), ("100", 1)])
def test_the_binary_passes_the_exit_code_through(
    capmap_bin: Path, one_case: Path, threshold: str, code: int
) -> None:
    done = run_capmap(capmap_bin, "coverage", "--fail-under", threshold, one_case, timeout=300)
    assert done.returncode == code, done.stderr
    assert done.stdout.startswith("kornia 0.9")


METHODS = (
    "import kornia\nimport torch\nfrom kornia.geometry.liegroup import So3\n"
    "from kornia.geometry.vector import Vector3\nfrom capmap import case, exclude, library\n"
    'library("kornia")\n'
    'case("So3.inverse", "geometry", So3.identity(1), [], method="inverse")\n'
    'case("So3.random", "geometry", So3, [1], method="random")\n'
    'case("So3.q", "geometry", lambda q: So3(kornia.geometry.Quaternion(q)).matrix(), [torch.rand(1, 4)],\n'
    '     covers="kornia.geometry.liegroup.So3.matrix")\n'
    'case("Vector3.__add__", "geometry", Vector3(torch.rand(1, 3)), [Vector3(torch.rand(1, 3))],\n'
    '     method="__add__")\n'
    'case("sift_describe", "feature", kornia.feature.siftdesc.sift_describe, [torch.rand(1, 1, 41, 41)])\n'
    'case("rand", "other", torch.rand, [2])\n'
    'exclude("kornia.augmentation.*.apply_transform", reason="hook")\n'
    'exclude("kornia.core.TensorWrapper", reason="base")\n'
)


@pytest.fixture(scope="module")
def methods_report(tmp_path_factory: pytest.TempPathFactory) -> coverage.CoverageReport:
    path = tmp_path_factory.mktemp("coverage") / "methods.py"
    path.write_text(METHODS)
    return coverage.measure(registry.load([str(path)]))


def test_methods_are_counted_once_and_covered_by_method_and_covers(
    methods_report: coverage.CoverageReport,
) -> None:
    by_name = {n: m for m in methods_report.methods for n in m.names}
    assert len({id(m.func) for m in methods_report.methods}) == len(methods_report.methods)
    covered = set(methods_report.methods_by_case)
    for name in ("So3.inverse", "So3.random", "So3.matrix"):
        assert id(by_name[f"kornia.geometry.liegroup.{name}"].func) in covered, name
    assert id(by_name["kornia.geometry.liegroup.So3.log"].func) not in covered
    # The wrappers' arithmetic is defined once (TensorWrapper) and inherited: one method, many names.
    add = by_name["kornia.geometry.vector.Vector3.__add__"]
    assert "kornia.geometry.vector.Vector2.__add__" in add.names and add.kind == "operator"
    assert id(add.func) in covered
    # An excluded base class does not take away what its public subclasses inherit.
    assert (
        id(by_name["kornia.geometry.vector.Vector2.__sub__"].func) not in methods_report.methods_by_exclusion
    )
    kinds = {by_name[f"kornia.geometry.liegroup.So3.{n}"].kind for n in ("random", "hat", "inverse")}
    assert kinds == {"classmethod", "staticmethod", "method"}
    # forward is the class itself, and Module's own API (to, train) is not a method of the library.
    affine = {n.rsplit(".", 1)[1] for n in by_name if n.startswith("kornia.augmentation.RandomAffine.")}
    assert "apply_transform" in affine and not affine & {"forward", "train", "to"}


def test_a_pattern_exclusion_leaves_out_every_matching_method(
    methods_report: coverage.CoverageReport,
) -> None:
    missing = methods_report.methods_missing()
    assert "apply_transform" not in missing.get("kornia.augmentation.RandomAffine", [])
    assert "compute_transformation" in missing.get("kornia.augmentation.RandomAffine", [])
    data = methods_report.methods_json()
    assert data["excluded"] > 50 and data["covered"] == data["by_cases"] + data["excluded"]


def test_cases_outside_the_public_api_are_unlisted_or_stray(methods_report: coverage.CoverageReport) -> None:
    assert [e["case"] for e in methods_report.unlisted_cases] == ["sift_describe"]
    assert [e["case"] for e in methods_report.stray_cases] == ["rand"]

"""`capmap coverage` on the real kornia: the figure, aliases, exclusions, exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from capmap import coverage
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
    assert report["total"] > 800
    assert report["percent"] >= TARGET_PERCENT
    assert report["stray_cases"] == []


def test_fail_under_decides_the_exit_code(one_case: Path) -> None:
    report = json.loads(run_coverage("--json", str(one_case)).stdout)
    assert 0 < report["percent"] < 5
    below, above = report["percent"] + 0.5, report["percent"] - 0.5
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

"""`capmap coverage` on the real kornia: the figure, aliases, exclusions, exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from capmap import coverage
from conftest import python_env, run_capmap

# What the whole Kornia survey reaches on kornia 0.9 (cases plus justified exclusions).
TARGET_PERCENT = 95.0
AREA_B = [
    f"capmap.registries.kornia.{m}"
    for m in (
        "feature",
        "filters",
        "color",
        "enhance",
        "morphology",
        "contrib",
        "losses",
        "metrics",
        "utils",
        "sensors",
        "nerf",
        "tracking",
        "image",
        "models",
        "exclusions",
    )
]


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


def test_fail_under_decides_the_exit_code() -> None:
    report = json.loads(run_coverage("--json", *AREA_B).stdout)
    below, above = report["percent"] + 1.0, report["percent"] - 1.0
    failing = run_coverage("--fail-under", f"{below:.2f}", *AREA_B)
    assert failing.returncode == 1
    assert f"under {below:g}%" in failing.stderr
    assert run_coverage("--fail-under", f"{above:.2f}", *AREA_B).returncode == 0


def test_text_report_groups_missing_names_by_module(tmp_path: Path) -> None:
    registry_file = tmp_path / "one_case.py"
    registry_file.write_text(
        "import kornia.color\nimport torch\nfrom capmap import case, exclude, library\n"
        'library("kornia")\n'
        'case("rgb_to_grayscale", "color", kornia.color.rgb_to_grayscale, [torch.rand(1, 3, 4, 4)])\n'
        'exclude("kornia.onnx", reason="runs ONNX models")\n'
    )
    done = run_coverage(str(registry_file))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("kornia 0.9")
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
def test_the_binary_passes_the_exit_code_through(capmap_bin: Path, threshold: str, code: int) -> None:
    done = run_capmap(capmap_bin, "coverage", "--fail-under", threshold, *AREA_B, timeout=300)
    assert done.returncode == code, done.stderr
    assert done.stdout.startswith("kornia 0.9")

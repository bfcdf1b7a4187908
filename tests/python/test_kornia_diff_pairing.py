"""`capmap diff` of Kornia's own published survey data against the bundled Kornia survey: the
cases pair by package, operator and variant, not by name, and the report says how many paired."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from capmap_testing import REPO, run_capmap

KORNIA_FILE = REPO.parent / "shared" / "data" / "kornia" / "export_support.json"
SNAPSHOT = REPO / "surveys" / "kornia" / "snapshot.json"

# Kornia's file probes 1,215 of its 1,339 cases; 1,026 of them pair with a capmap case under the
# rules (the rest are variants capmap's registry does not measure, or configures otherwise, or
# operators it names otherwise). The floor leaves room for registry edits, not for guessing.
MIN_PAIRED_PROBED = 1000

pytestmark = pytest.mark.skipif(
    not KORNIA_FILE.exists() or not SNAPSHOT.exists(), reason="Kornia's data file is not here"
)


def diff_json(capmap_bin: Path, old: Path, new: Path) -> dict[str, Any]:
    done = run_capmap(capmap_bin, "diff", old, new, "--format", "json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_most_of_kornias_probed_cases_pair_with_a_capmap_case(capmap_bin: Path) -> None:
    report = diff_json(capmap_bin, KORNIA_FILE, SNAPSHOT)
    pairing = report["pairing"]
    assert (pairing["old_label"], pairing["new_label"]) == ("Kornia", "capmap")
    assert (pairing["old_cases"], pairing["old_probed"]) == (1339, 1215)
    assert pairing["old_probed_paired"] >= MIN_PAIRED_PROBED
    assert report["counts"]["removed_cases"] == pairing["old_cases"] - pairing["pairs"]

    text = run_capmap(capmap_bin, "diff", KORNIA_FILE, SNAPSHOT).stdout
    paired = pairing["old_probed_paired"]
    assert f"Pairing: {paired:,} of Kornia's 1,215 probed cases pair with a capmap case" in text
    assert "Only in Kornia (no capmap case pairs with it)" in text


def test_normalize_pairs_within_its_own_package(capmap_bin: Path, tmp_path: Path) -> None:
    published = json.loads(KORNIA_FILE.read_text())
    for case in published["cases"]:
        if case["name"] == "Normalize":  # kornia.augmentation.Normalize
            case["onnx"], case["onnx_detail"] = "fail", "made to fail for this test"
        if case["name"] == "enhance.Normalize":
            case["onnx"], case["onnx_detail"] = "mismatch", "made to differ for this test"
    changed = tmp_path / "export_support.json"
    changed.write_text(json.dumps(published))

    report = diff_json(capmap_bin, changed, SNAPSHOT)
    fixes = {(f["old_case"], f["case"], f["path"]) for f in report["fixes"] if "old_case" in f}
    assert ("Normalize", "augmentation.Normalize", "onnx") in fixes
    assert ("enhance.Normalize", "Normalize", "onnx") in fixes

    md = run_capmap(capmap_bin, "diff", changed, SNAPSHOT, "--format", "md").stdout
    assert (
        "| `augmentation.Normalize` (Kornia: `Normalize`) | onnx | "
        "fails (made to fail for this test) → works |" in md
    )


def test_kornias_own_data_file_renders_as_a_page(capmap_bin: Path, tmp_path: Path) -> None:
    page = tmp_path / "page.html"
    done = run_capmap(capmap_bin, "render", KORNIA_FILE, "--html", page, "--md", tmp_path / "summary.md")
    assert done.returncode == 0, done.stderr
    text = page.read_text()
    published = json.loads(KORNIA_FILE.read_text())
    assert published["kornia"] in text
    names = [c["name"] for c in published["cases"]]
    # Every operator has its row (a variant's bracket is rendered apart from its operator's name).
    missing = sorted({n.split("[", 1)[0] for n in names if n.split("[", 1)[0] not in text})
    assert not missing, missing[:20]
    summary = (tmp_path / "summary.md").read_text()
    assert f"The survey lists {len(names):,} cases" in summary, summary[:2000]

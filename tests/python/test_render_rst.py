"""`capmap render --rst` built by a real Sphinx run, with inventory cross-references."""

from __future__ import annotations

import subprocess
import sys
import zlib
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "browser"))

from snapshots import HOSTILE, hostile_snapshot, small_snapshot, write_snapshot  # noqa: E402

API_RST = """API
===

.. py:function:: kornia.geometry.transform.warp_affine(src, M, dsize)

   Applies an affine transformation.

.. py:class:: kornia.filters.canny

   Finds edges.
"""


def sphinx_build(project: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "sphinx",
            "-N",
            "-W",
            "-q",
            "-b",
            "html",
            str(project),
            str(project / "_build"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def render(capmap_bin: Path, *args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(capmap_bin), "render", *map(str, args)], capture_output=True, text=True, timeout=600, check=False
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A tiny Sphinx project documenting two kornia names; a first build gives its objects.inv."""
    root = tmp_path / "docs"
    root.mkdir()
    (root / "conf.py").write_text('project = "demo"\nextensions = []\n')
    (root / "index.rst").write_text("Demo\n====\n\n.. toctree::\n\n   api\n   compat\n")
    (root / "api.rst").write_text(API_RST)
    (root / "compat.rst").write_text("Compatibility\n=============\n")
    done = sphinx_build(root)
    assert done.returncode == 0, done.stderr
    assert (root / "_build" / "objects.inv").is_file()
    return root


def test_rst_builds_with_sphinx_and_cross_references_resolve(
    capmap_bin: Path, project: Path, tmp_path: Path
) -> None:
    snap = write_snapshot(small_snapshot(), tmp_path / "snapshot.json")
    inventory = project / "_build" / "objects.inv"
    done = render(capmap_bin, snap, "--rst", project / "compat.rst", "--inventory", inventory)
    assert done.returncode == 0, done.stderr
    # warp_affine (two variants) and canny resolve; the other four stay plain text.
    assert "4 of 7 operator names are not in" in done.stderr
    rst = (project / "compat.rst").read_text()
    assert ":py:func:`warp_affine <kornia.geometry.transform.warp_affine>`" in rst
    assert ":py:class:`canny <kornia.filters.canny>`" in rst

    built = sphinx_build(project)
    assert built.returncode == 0, built.stderr
    html = (project / "_build" / "compat.html").read_text()
    assert html.count('href="api.html#kornia.geometry.transform.warp_affine"') == 2
    assert 'href="api.html#kornia.filters.canny"' in html
    assert 'href="api.html#kornia.color.rgb_to_gray"' not in html
    assert "rgb_to_gray" in html
    # Cards, legend, causes and the explorer made it through docutils.
    for text in (
        "At a glance",
        "By package",
        "Top causes of failure",
        "Legend",
        "data-dependent output shape",
    ):
        assert text in html
    assert 'id="capmap-app" data-mode="adopt"' in html
    assert html.count('class="capmap-cases') == 4  # one table per public package


def test_hand_written_inventory_is_read(capmap_bin: Path, project: Path, tmp_path: Path) -> None:
    """An objects.inv written here with zlib, with the '$' shorthand and a name with spaces."""
    body = (
        "kornia.color.rgb_to_gray py:function 1 api.html#$ -\n"
        "some label std:label -1 api.html#label Some label\n"
        "kornia.color.rgb_to_hsv py:function 1 api.html#$ -\n"
    )
    header = (
        "# Sphinx inventory version 2\n# Project: demo\n# Version: \n"
        "# The remainder of this file is compressed using zlib.\n"
    )
    inventory = tmp_path / "objects.inv"
    inventory.write_bytes(header.encode() + zlib.compress(body.encode()))
    snap = write_snapshot(small_snapshot(), tmp_path / "snapshot.json")
    done = render(capmap_bin, snap, "--rst", project / "compat.rst", "--inventory", inventory)
    assert done.returncode == 0, done.stderr
    assert "5 of 7 operator names" in done.stderr
    rst = (project / "compat.rst").read_text()
    assert ":py:func:`rgb_to_gray <kornia.color.rgb_to_gray>`" in rst
    # These names are not declared in this project: Sphinx leaves them unlinked but builds.
    built = sphinx_build(project)
    assert built.returncode == 0, built.stderr


def test_bad_inventory_is_one_line_and_writes_nothing(
    capmap_bin: Path, project: Path, tmp_path: Path
) -> None:
    bad = tmp_path / "objects.inv"
    bad.write_text("# Sphinx inventory version 1\nnot this\n")
    snap = write_snapshot(small_snapshot(), tmp_path / "snapshot.json")
    before = (project / "compat.rst").read_text()
    done = render(capmap_bin, snap, "--rst", project / "compat.rst", "--inventory", bad)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and str(bad) in done.stderr
    assert (project / "compat.rst").read_text() == before


def test_hostile_text_builds_and_stays_text(capmap_bin: Path, project: Path, tmp_path: Path) -> None:
    snap = write_snapshot(hostile_snapshot(), tmp_path / "snapshot.json")
    done = render(capmap_bin, snap, "--rst", project / "compat.rst")
    assert done.returncode == 0, done.stderr
    built = sphinx_build(project)
    assert built.returncode == 0, built.stderr
    html = (project / "_build" / "compat.html").read_text()
    assert HOSTILE not in html
    assert "&lt;script&gt;window.__pwned = 1&lt;/script&gt;" in html


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ('{"header": ', "not valid JSON: parse error at line 1, column 12"),
        ('{"schema_version": 1, "header": {}, "cases": [{"name": 3}]}', "snapshot case #1: has no name"),
        (
            '{"schema_version": 1, "header": {}, "cases": [{"name": "x", "paths": {"onnx": "no"}}]}',
            "snapshot case 'x': path 'onnx' should be an object",
        ),
    ],
)
def test_bad_snapshot_is_one_line_exit_2_and_keeps_outputs(
    capmap_bin: Path, tmp_path: Path, content: str, problem: str
) -> None:
    snap = tmp_path / "snapshot.json"
    snap.write_text(content)
    page = tmp_path / "page.html"
    page.write_text("the page from the last good run")
    done = render(capmap_bin, snap, "--html", page, "--md", tmp_path / "summary.md")
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1
    assert done.stderr.startswith(f"capmap: {snap}: ") and problem in done.stderr
    assert page.read_text() == "the page from the last good run"
    assert not (tmp_path / "summary.md").exists()


def test_a_paths_figure_is_a_role_under_its_badge_in_the_sphinx_page(
    capmap_bin: Path, project: Path, tmp_path: Path
) -> None:
    snapshot = small_snapshot()
    first = snapshot["cases"][0]
    path = snapshot["header"]["paths"][-1]
    first["paths"][path]["figure"] = "XNNPACK runs 3 of 9 nodes (33 %)"
    snap = write_snapshot(snapshot, tmp_path / "snapshot.json")
    done = render(capmap_bin, snap, "--rst", project / "compat.rst")
    assert done.returncode == 0, done.stderr
    rst = (project / "compat.rst").read_text()
    assert ".. role:: cm-figure" in rst
    assert ":cm-figure:`XNNPACK runs 3 of 9 nodes " in rst
    built = sphinx_build(project)
    assert built.returncode == 0, built.stderr
    html = (project / "_build" / "compat.html").read_text()
    assert '<span class="cm-figure">XNNPACK runs 3 of 9 nodes (33\u00a0%)</span>' in html
    # A page without figures declares no role for them.
    plain = write_snapshot(small_snapshot(), tmp_path / "plain.json")
    assert render(capmap_bin, plain, "--rst", tmp_path / "plain.rst").returncode == 0
    assert ".. role:: cm-figure" not in (tmp_path / "plain.rst").read_text()

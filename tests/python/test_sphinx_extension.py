"""capmap.sphinx in real Sphinx builds: the page rendered while the docs build, operators linked
to the project's own objects and to an intersphinx inventory, incremental rebuilds, clear errors
for a bad snapshot; and `capmap render --check`, the drift gate for committed pages."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import zlib
from pathlib import Path
from typing import Any

import pytest
from capmap_testing import python_env

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "browser"))

from snapshots import small_snapshot, write_snapshot  # noqa: E402

API_RST = """API
===

.. py:function:: kornia.geometry.transform.warp_affine(src, M, dsize)

   Applies an affine transformation.
"""

INVENTORY_BODY = "kornia.filters.canny py:function 1 filters.html#$ -\n"


def write_inventory(path: Path) -> Path:
    header = (
        "# Sphinx inventory version 2\n# Project: other\n# Version: \n"
        "# The remainder of this file is compressed using zlib.\n"
    )
    path.write_bytes(header.encode() + zlib.compress(INVENTORY_BODY.encode()))
    return path


def put(snapshot: dict[str, Any], path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    return write_snapshot(snapshot, path)


def project(root: Path, pages: dict[str, str], conf: str = "") -> Path:
    """A Sphinx project with capmap.sphinx, an API page and `pages`."""
    docs = root / "docs"
    docs.mkdir(parents=True, exist_ok=True)
    (docs / "conf.py").write_text(f'project = "demo"\nextensions = ["capmap.sphinx"]\n{conf}')
    toctree = "\n".join(f"   {name}" for name in ["api", *pages])
    (docs / "index.rst").write_text(f"Demo\n====\n\n.. toctree::\n\n{toctree}\n")
    (docs / "api.rst").write_text(API_RST)
    for name, text in pages.items():
        (docs / f"{name}.rst").write_text(text)
    return docs


def build(capmap_bin: Path, docs: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sphinx", "-N", "-W", "-n", "--keep-going", "-b", "html", *extra, str(docs),
         str(docs / "_build")],
        capture_output=True,
        text=True,
        timeout=600,
        env=python_env(CAPMAP_BIN=str(capmap_bin)),
        check=False,
    )  # fmt: skip


def survey_page(snapshot: str, options: str = "") -> str:
    return f"Compatibility\n=============\n\n.. capmap-survey:: {snapshot}\n{options}\n"


def test_the_page_is_rendered_while_the_docs_build_and_links_its_operators(
    capmap_bin: Path, tmp_path: Path
) -> None:
    put(small_snapshot(), tmp_path / "docs" / "_data" / "snapshot.json")
    inventory = write_inventory(tmp_path / "other.inv")
    docs = project(
        tmp_path,
        {"compat": survey_page("_data/snapshot.json")},
        f'extensions.append("sphinx.ext.intersphinx")\n'
        f'intersphinx_mapping = {{"other": ("https://other.example/", "{inventory}")}}\n',
    )
    done = build(capmap_bin, docs)
    assert done.returncode == 0, done.stderr
    assert "WARNING" not in done.stderr and "ERROR" not in done.stderr
    html = (docs / "_build" / "compat.html").read_text()
    # The project's own object and the inventory's; the other operators stay text, unwarned.
    assert html.count('href="api.html#kornia.geometry.transform.warp_affine"') == 2
    assert 'href="https://other.example/filters.html#kornia.filters.canny"' in html
    assert re.search(r'<span class="cm-op">rgb_to_gray</span>', html)
    for section in ("At a glance", "By package", "Top causes of failure", "Legend", "Cases"):
        assert section in html
    assert 'id="capmap-app" data-mode="adopt"' in html
    # The sections join the page's table of contents.
    assert "At a glance" in (docs / "_build" / "index.html").read_text()


def test_a_shorter_public_name_links_when_the_full_one_is_undocumented(
    capmap_bin: Path, tmp_path: Path
) -> None:
    snap = small_snapshot()
    for c in snap["cases"]:
        if c["operator"] == "warp_affine":
            c["ref"] = "kornia.geometry.transform.imgwarp.warp_affine"
    put(snap, tmp_path / "snapshot.json")
    docs = project(tmp_path, {"compat": survey_page("/../snapshot.json")})
    done = build(capmap_bin, docs)
    assert done.returncode == 0, done.stderr
    html = (docs / "_build" / "compat.html").read_text()
    assert html.count('href="api.html#kornia.geometry.transform.warp_affine"') == 2


def test_packages_and_baseline_options(capmap_bin: Path, tmp_path: Path) -> None:
    old = small_snapshot()
    new = small_snapshot()
    # canny's crashed compile cell is fixed in the new snapshot.
    for c in new["cases"]:
        if c["operator"] == "canny":
            assert c["paths"]["compile"]["page_status"] == "crashed"
            c["paths"]["compile"] = {"status": "ok", "page_status": "ok", "seconds": 0.1, "graph_breaks": 0}
    put(old, tmp_path / "old.json")
    put(new, tmp_path / "new.json")
    docs = project(
        tmp_path,
        {"compat": survey_page("/../new.json", "   :baseline: /../old.json\n   :packages: filters, color")},
    )
    done = build(capmap_bin, docs)
    assert done.returncode == 0, done.stderr
    html = (docs / "_build" / "compat.html").read_text()
    assert ">Changes<" in html and "1 fixes" in html
    assert "canny" in html and "warp_affine" not in html


def test_an_incremental_build_renders_again_only_the_page_whose_snapshot_changed(
    capmap_bin: Path, tmp_path: Path
) -> None:
    snap = put(small_snapshot(), tmp_path / "docs" / "a.json")
    put(small_snapshot(), tmp_path / "docs" / "b.json")
    docs = project(tmp_path, {"first": survey_page("a.json"), "second": survey_page("b.json")})
    assert build(capmap_bin, docs).returncode == 0
    unchanged = build(capmap_bin, docs)
    assert unchanged.returncode == 0, unchanged.stderr
    assert "0 added, 0 changed, 0 removed" in unchanged.stdout, unchanged.stdout
    edited = json.loads(snap.read_text())
    edited["cases"][0]["operator"] = "renamed_operator"
    time.sleep(0.01)
    snap.write_text(json.dumps(edited))
    os.utime(snap, (time.time() + 5, time.time() + 5))
    changed = build(capmap_bin, docs)
    assert changed.returncode == 0, changed.stderr
    assert "0 added, 1 changed, 0 removed" in changed.stdout, changed.stdout
    assert "renamed_operator" in (docs / "_build" / "first.html").read_text()
    assert "renamed_operator" not in (docs / "_build" / "second.html").read_text()


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (None, "capmap-survey: _data/snapshot.json: no such file"),
        ('{"header": {},\n  "cases": [1,]}', "capmap-survey: _data/snapshot.json:2:15: not valid JSON"),
        ('{"schema_version": 1, "header": {}, "cases": [{"name": 3}]}', "snapshot case #1: has no name"),
    ],
)
def test_a_bad_snapshot_is_an_error_naming_it_and_the_rest_builds(
    capmap_bin: Path, tmp_path: Path, content: str | None, problem: str
) -> None:
    docs = project(
        tmp_path, {"compat": survey_page("_data/snapshot.json"), "other": "Other\n=====\n\nText.\n"}
    )
    if content is not None:
        (docs / "_data").mkdir()
        (docs / "_data" / "snapshot.json").write_text(content)
    done = build(capmap_bin, docs)
    assert done.returncode != 0
    errors = [line for line in done.stderr.splitlines() if "ERROR" in line]
    assert len(errors) == 1, done.stderr
    assert errors[0].startswith(f"{docs / 'compat.rst'}:4: ERROR: ") and problem in errors[0], errors[0]
    assert (docs / "_build" / "other.html").is_file()
    assert "Compatibility" in (docs / "_build" / "compat.html").read_text()


def test_a_second_survey_on_one_page_is_refused(capmap_bin: Path, tmp_path: Path) -> None:
    put(small_snapshot(), tmp_path / "docs" / "s.json")
    docs = project(tmp_path, {"compat": survey_page("s.json") + "\n.. capmap-survey:: s.json\n"})
    done = build(capmap_bin, docs)
    assert done.returncode != 0
    assert "one survey per page" in done.stderr


def test_the_history_directive_renders_the_version_matrix(capmap_bin: Path, tmp_path: Path) -> None:
    old, new = small_snapshot(), small_snapshot()
    old["header"]["versions"]["torch"] = "2.9.1"
    # A cause with RST markup reads as text.
    new["cases"][1]["paths"]["onnx"]["cause"] = "copies (copy_) `x` *y*"
    put(old, tmp_path / "docs" / "old.json")
    put(new, tmp_path / "docs" / "new.json")
    docs = project(tmp_path, {"history": "History\n=======\n\n.. capmap-history:: old.json new.json\n"})
    done = build(capmap_bin, docs)
    assert done.returncode == 0, done.stderr
    html = (docs / "_build" / "history.html").read_text()
    assert "Operators by version" in html and "torch 2.9.1" in html and "torch 2.13.0" in html


def test_render_check_says_when_a_committed_page_has_drifted(capmap_bin: Path, tmp_path: Path) -> None:
    snap = put(small_snapshot(), tmp_path / "snapshot.json")
    page = tmp_path / "compat.rst"

    def render(*flags: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(capmap_bin), "render", str(snap), "--rst", str(page), *flags],
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )

    missing = render("--check")
    assert missing.returncode == 1 and "no such file" in missing.stderr and not page.exists()
    assert render().returncode == 0
    fresh = render("--check")
    assert fresh.returncode == 0, fresh.stderr
    assert "1 file is up to date" in fresh.stderr
    edited = small_snapshot()
    edited["cases"][0]["operator"] = "renamed_operator"
    put(edited, snap)
    committed = page.read_text()
    stale = render("--check")
    assert stale.returncode == 1
    assert stale.stderr.count("\n") == 1
    assert f"capmap: {page} is not what {snap} renders: line " in stale.stderr
    assert "differs: committed" in stale.stderr
    assert page.read_text() == committed  # --check writes nothing


def test_a_relative_binary_is_found_from_where_it_was_named(capmap_bin: Path, tmp_path: Path) -> None:
    """CAPMAP_BIN relative to the folder sphinx-build runs in, capmap_binary relative to conf.py's
    folder (as Sphinx reads its other paths): capmap runs from the page's folder, elsewhere."""
    put(small_snapshot(), tmp_path / "docs" / "_data" / "snapshot.json")
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "capmap").symlink_to(capmap_bin)
    pages = {"compat": survey_page("_data/snapshot.json")}
    for conf, env_bin in (("", "tools/capmap"), ('capmap_binary = "../tools/capmap"\n', "")):
        docs = project(tmp_path, pages, conf)
        done = subprocess.run(
            [sys.executable, "-m", "sphinx", "-E", "-W", "-b", "html", "docs", "docs/_build"],
            capture_output=True, text=True, timeout=600, cwd=tmp_path,
            env=python_env(CAPMAP_BIN=env_bin), check=False,
        )  # fmt: skip
        assert done.returncode == 0, (conf, done.stderr)
        assert 'id="capmap-app"' in (docs / "_build" / "compat.html").read_text(), conf

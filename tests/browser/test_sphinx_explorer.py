"""The explorer embedded in the Sphinx page filters the tables Sphinx wrote."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from page_session import PageSession
from snapshots import small_snapshot, write_snapshot

VISIBLE_ROWS = """() => Array.from(document.querySelectorAll('table.capmap-cases tbody tr'))
  .filter(r => !r.hidden && !r.closest('section').hidden)
  .map(r => {
    const op = r.cells[0].textContent.trim();
    const variant = r.cells[1].textContent.trim();
    return variant ? `${op}[${variant}]` : op;
  })"""


def test_sphinx_page_explorer_filters_its_tables(
    capmap_bin: Path, tmp_path: Path, session: PageSession
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "conf.py").write_text('project = "demo"\n')
    (docs / "index.rst").write_text("Demo\n====\n\n.. toctree::\n\n   compat\n")
    snap = write_snapshot(small_snapshot(), tmp_path / "snapshot.json")
    done = subprocess.run(
        [str(capmap_bin), "render", str(snap), "--rst", str(docs / "compat.rst")],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    built = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "-q", "-b", "html", str(docs), str(docs / "_build")],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert built.returncode == 0, built.stderr

    page = session.open(docs / "_build" / "compat.html")
    assert session.errors == []
    assert len(page.evaluate(VISIBLE_ROWS)) == 7
    page.locator("#cm-q").fill("warp")
    assert sorted(page.evaluate(VISIBLE_ROWS)) == ["warp_affine[bilinear]", "warp_affine[nearest]"]
    page.locator("#cm-q").fill("")
    page.locator('button[data-view="fail-compile"]').click()
    assert sorted(page.evaluate(VISIBLE_ROWS)) == ["canny", "find_homography_dlt"]
    assert page.locator("#cm-status").inner_text() == "Showing 2 of 7 cases"

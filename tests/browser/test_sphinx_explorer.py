"""The explorer embedded in the Sphinx page filters the tables Sphinx wrote, and the
page stays readable at phone width and in the theme's colours."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from page_session import PageSession
from playwright.sync_api import Browser
from snapshots import small_snapshot, write_snapshot
from sphinx_build import SPHINX_HTML
from test_page_layout import TOO_WIDE

VISIBLE_ROWS = """() => Array.from(document.querySelectorAll('table.capmap-cases tbody tr'))
  .filter(r => !r.hidden && !r.closest('section').hidden)
  .map(r => {
    const op = r.cells[0].firstElementChild.textContent.trim();
    const variant = r.cells[1].textContent.trim();
    return variant ? `${op}[${variant}]` : op;
  })"""


@pytest.fixture(scope="module")
def sphinx_page(capmap_bin: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The small snapshot's RST page built by Sphinx (alabaster, -W -n)."""
    root = tmp_path_factory.mktemp("sphinx")
    docs = root / "docs"
    docs.mkdir()
    (docs / "conf.py").write_text('project = "demo"\nhtml_theme = "alabaster"\n')
    (docs / "index.rst").write_text("Demo\n====\n\n.. toctree::\n\n   compat\n")
    snap = write_snapshot(small_snapshot(), root / "snapshot.json")
    done = subprocess.run(
        [str(capmap_bin), "render", str(snap), "--rst", str(docs / "compat.rst")],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    built = subprocess.run(
        [*SPHINX_HTML, str(docs), str(docs / "_build")],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert built.returncode == 0, built.stderr
    return docs / "_build" / "compat.html"


@pytest.fixture
def phone(browser: Browser) -> Iterator[PageSession]:
    context = browser.new_context(viewport={"width": 390, "height": 844})
    yield PageSession(context.new_page())
    context.close()


def test_sphinx_page_explorer_filters_its_tables(sphinx_page: Path, session: PageSession) -> None:
    page = session.open(sphinx_page)
    assert session.errors == []
    assert len(page.evaluate(VISIBLE_ROWS)) == 7
    page.locator("#cm-q").fill("warp")
    assert sorted(page.evaluate(VISIBLE_ROWS)) == ["warp_affine[bilinear]", "warp_affine[nearest]"]
    # The words found are marked in the names Sphinx wrote and in the public names.
    page.wait_for_selector("table.capmap-cases tbody tr:not([hidden]) td:first-child a mark")
    shown = "table.capmap-cases tbody tr:not([hidden])"
    # Inside the link Sphinx wrote, which stays a link.
    assert set(page.locator(f"{shown} td:first-child a mark").all_text_contents()) == {"warp"}
    assert set(page.locator(f"{shown} .qn mark").all_text_contents()) == {"warp"}
    assert page.evaluate(VISIBLE_ROWS)[0].startswith("warp_affine")  # the name reads as before
    page.locator("#cm-q").fill("")
    page.locator('button[data-view="fail-compile"]').click()
    assert sorted(page.evaluate(VISIBLE_ROWS)) == ["canny", "find_homography_dlt"]
    assert page.locator("#cm-status").inner_text() == "Showing 2 of 7 cases"
    # A failure opens to what to do, as on the HTML page.
    row = page.locator("table.capmap-cases tbody tr", has_text="canny").first
    row.locator("button.cm-why").first.click()
    assert "capmap repro 'canny' --path" in row.locator(".cm-why-panel").inner_text()
    # Rows name the operator publicly, as the HTML page does.
    assert page.locator("table.capmap-cases .qn").first.text_content() == "kornia.augmentation.random_crop"


def test_sphinx_tables_fit_the_body_and_the_toolbar_stays(sphinx_page: Path, session: PageSession) -> None:
    session.page.set_viewport_size({"width": 1400, "height": 900})
    page = session.open(sphinx_page)
    body = page.locator("div.body").bounding_box()
    assert body is not None
    for table in page.locator("table.capmap-cases").all():
        box = table.bounding_box()
        assert box is not None and box["x"] + box["width"] <= body["x"] + body["width"] + 1
    assert (page.locator("#cm-q").bounding_box() or {"y": 9999})["y"] < 900
    page.mouse.wheel(0, 2500)
    page.wait_for_function("window.scrollY > 1500")
    search = page.locator("#cm-q").bounding_box()
    assert search is not None and 0 <= search["y"] < 120


def test_sphinx_page_at_phone_width_fits_the_screen(sphinx_page: Path, phone: PageSession) -> None:
    page = phone.open(sphinx_page)
    assert phone.errors == []
    assert page.evaluate(TOO_WIDE) == []
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert (
        page.evaluate("getComputedStyle(document.querySelector('table.capmap-cases tbody tr')).display")
        == "flex"
    )


def test_sphinx_page_follows_the_theme_not_the_os(sphinx_page: Path, session: PageSession) -> None:
    page = session.open(sphinx_page)
    page.emulate_media(color_scheme="dark")
    badge = page.evaluate(
        "getComputedStyle(document.querySelector('table.capmap-cases .st-ok')).backgroundColor"
    )
    toolbar = page.evaluate("getComputedStyle(document.querySelector('#cm-controls')).backgroundColor")
    assert badge == "rgb(218, 251, 225)" and toolbar == "rgb(255, 255, 255)"
    # A theme that says it is dark gets the dark colours.
    page.evaluate("document.body.dataset.theme = 'dark'")
    toolbar = page.evaluate("getComputedStyle(document.querySelector('#cm-controls')).backgroundColor")
    assert toolbar == "rgb(13, 17, 23)"

"""The published Kornia page built by `capmap.sphinx` under four Sphinx themes (-W -n), checked in
Chromium at phone and desktop width: it fits the screen, search and filters work, the toolbar stays
in view below the theme's header, the theme's dark mode reaches the controls, axe-core finds no
serious or critical violation in capmap's part of the page, and a hostile snapshot stays inert."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from page_session import PageSession
from playwright.sync_api import Browser, Page
from snapshots import write_snapshot
from sphinx_build import SPHINX_HTML
from test_hostile_links import LIVE, MARKUP, hostile_everywhere

REPO = Path(__file__).resolve().parents[2]
PUBLISHED = REPO / "surveys" / "kornia" / "snapshot.json"
THEMES = ["alabaster", "furo", "pydata_sphinx_theme", "sphinx_rtd_theme"]
# How each theme that switches says it is dark, and where it says so.
DARK_THEMES = {"furo": "body", "pydata_sphinx_theme": "html"}
DARK_BG = "rgb(13, 17, 23)"
LIGHT_BG = "rgb(255, 255, 255)"
DARK_PANEL = "rgb(22, 27, 34)"
LIGHT_PANEL = "rgb(246, 248, 250)"
# What capmap puts on the page; the checks below look only there, not at the theme's own parts.
OURS = "#cm-controls, table.capmap-cases, .cm-embed, #capmap-app"
# RST a snapshot might carry: each would become a link, a substitution, a footnote or emphasis
# if parsed, and the block a directive that writes raw HTML.
RST_INLINE = "`x <javascript:window.__pwned=9>`_ :ref:`genindex` |sub| **bold** [#]_ _`target`"
RST_BLOCK = "\n\n.. raw:: html\n\n   <script>window.__pwned=8</script>\n\n" + RST_INLINE

# Nodes of capmap's part of the page that reach past the viewport's edges.
OUTSIDE = """(ours) => {
  const width = document.documentElement.clientWidth;
  const out = [];
  for (const root of document.querySelectorAll(ours)) {
    for (const node of [root, ...root.querySelectorAll('*')]) {
      const box = node.getBoundingClientRect();
      if (box.width === 0 && box.height === 0) continue;
      if (box.right > width + 1 || box.left < -1) {
        const name = `${node.tagName.toLowerCase()}.${node.className}`;
        out.push(`${name} ${Math.round(box.left)}..${Math.round(box.right)}`);
      }
    }
  }
  return out.slice(0, 10);
}"""
# True when the search box is what a reader sees (and can click) at its own centre.
SEARCH_ON_TOP = """() => {
  const box = document.querySelector('#cm-q').getBoundingClientRect();
  const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
  return box.top >= 0 && box.bottom <= innerHeight && hit === document.querySelector('#cm-q');
}"""


def build_site(root: Path, theme: str) -> subprocess.Popen[str]:
    """A throwaway project: the extension, the published page and a hostile one."""
    docs = root / theme
    data = docs / "_data"
    data.mkdir(parents=True)
    shutil.copy(PUBLISHED, data / "snapshot.json")
    hostile = hostile_everywhere()
    for entry in hostile["cases"]:
        for key in ("operator", "variant", "group", "section"):
            entry[key] += RST_INLINE
        entry["note"] += RST_BLOCK
        for record in entry["paths"].values():
            if record.get("message"):
                record["message"] += RST_BLOCK
    write_snapshot(hostile, data / "hostile.json")
    conf = f'project = "demo"\nextensions = ["capmap.sphinx"]\nhtml_theme = "{theme}"\n'
    if theme == "pydata_sphinx_theme":
        # Its documented setting; left out, its script logs an error on every page.
        conf += 'html_context = {"default_mode": "auto"}\n'
    (docs / "conf.py").write_text(conf)
    (docs / "index.rst").write_text("Demo\n====\n\n.. toctree::\n\n   kornia\n   hostile\n")
    (docs / "kornia.rst").write_text("Kornia\n======\n\n.. capmap-survey:: _data/snapshot.json\n")
    (docs / "hostile.rst").write_text("Hostile\n=======\n\n.. capmap-survey:: _data/hostile.json\n")
    return subprocess.Popen(
        [*SPHINX_HTML, str(docs), str(docs / "_build")],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ},
    )


@pytest.fixture(scope="module")
def sites(capmap_bin: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Each theme's built site (two builds at a time: they are CPU-bound)."""
    os.environ.setdefault("CAPMAP_BIN", str(capmap_bin))
    root = tmp_path_factory.mktemp("themes")
    built: dict[str, Path] = {}
    for pair in (THEMES[:2], THEMES[2:]):
        running = {theme: build_site(root, theme) for theme in pair}
        for theme, process in running.items():
            output, _ = process.communicate(timeout=600)
            assert process.returncode == 0, f"{theme}: sphinx -W -n failed:\n{output}"
            assert output.strip() == "", f"{theme}: sphinx printed:\n{output}"
            built[theme] = root / theme / "_build"
    return built


@pytest.fixture(scope="module")
def published_cases() -> int:
    return len(json.loads(PUBLISHED.read_text())["cases"])


@pytest.fixture
def window(browser: Browser, request: pytest.FixtureRequest) -> Iterator[PageSession]:
    width = request.param
    phone = width < 600
    context = browser.new_context(
        viewport={"width": width, "height": 844 if phone else 900}, is_mobile=phone, has_touch=phone
    )
    yield PageSession(context.new_page())
    context.close()


def open_page(session: PageSession, path: Path) -> Page:
    page = session.open(path)
    page.wait_for_selector("html[data-capmap-complete]", state="attached")
    return page


def status_count(page: Page) -> int:
    text = page.locator("#cm-status").inner_text()
    assert text.startswith("Showing "), text
    return int(text.split()[1].replace(",", ""))


@pytest.mark.parametrize("window", [390, 1400], indirect=True, ids=["390px", "1400px"])
@pytest.mark.parametrize("theme", THEMES)
def test_published_page_fits_searches_and_filters(
    sites: dict[str, Path], window: PageSession, theme: str, published_cases: int
) -> None:
    page = open_page(window, sites[theme] / "kornia.html")
    assert window.errors == []
    width = page.viewport_size["width"] if page.viewport_size else 0
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert page.evaluate(OUTSIDE, OURS) == []
    assert status_count(page) == published_cases
    page.locator("#cm-q").fill("warp_affine")
    found = status_count(page)
    assert 0 < found < published_cases
    assert page.locator("table.capmap-cases tbody tr:not([hidden]) mark").first.inner_text() == "warp_affine"
    page.locator("#cm-q").fill("")
    toggle = page.locator("button.cm-filters-toggle")
    if toggle.is_visible():
        toggle.click()
    chip = page.locator('button[data-view="fail-onnx"]')
    chip.click()
    failing = status_count(page)
    assert 0 < failing < published_cases
    assert int(chip.locator(".n").inner_text().replace(",", "")) == failing
    assert chip.get_attribute("aria-pressed") == "true"
    # Far down the page the search is still in view, below the theme's header, not under it.
    page.keyboard.press("Escape")
    page.mouse.wheel(0, 4000)
    page.wait_for_function("window.scrollY > 3000")
    page.wait_for_timeout(100)
    assert page.evaluate(SEARCH_ON_TOP)
    assert page.evaluate(OUTSIDE, OURS) == []


def background(page: Page, selector: str) -> str:
    return str(page.evaluate(f"getComputedStyle(document.querySelector('{selector}')).backgroundColor"))


@pytest.mark.parametrize("window", [1400], indirect=True, ids=["1400px"])
@pytest.mark.parametrize("theme", THEMES)
def test_dark_mode_follows_the_theme(sites: dict[str, Path], window: PageSession, theme: str) -> None:
    window.page.emulate_media(color_scheme="dark")
    page = open_page(window, sites[theme] / "kornia.html")
    controls = ["#cm-controls", "#cm-q", "table.capmap-cases thead th", "table.capmap-cases .st-ok"]
    light = [LIGHT_BG, LIGHT_BG, LIGHT_PANEL, "rgb(218, 251, 225)"]
    if theme not in DARK_THEMES:
        # A theme with no dark mode stays light whatever the OS prefers.
        assert [background(page, s) for s in controls] == light
        return
    # The theme follows the OS by default ("auto"): the controls follow the theme.
    assert [background(page, s) for s in controls] == [DARK_BG, DARK_BG, DARK_PANEL, "rgb(18, 54, 31)"]
    # The reader picks light in the theme although the OS is dark: the controls go light.
    where = "document.body" if DARK_THEMES[theme] == "body" else "document.documentElement"
    page.evaluate(f"{where}.dataset.theme = 'light'")
    assert [background(page, s) for s in controls] == light


# Keeps one row of each kind in every case table: a row whose elements carry the same tags and
# classes as a row kept before, at the same stripe (odd or even, counted among the rows kept), is
# styled alike, so axe would judge it alike. A table left without rows goes with them. axe-core
# costs time per element of the part it checks (its colour-contrast rule most: 20 s for 300
# rows), so the whole survey's 1,800 rows come down to their few dozen kinds. Returns the ids
# used more than once in capmap's part of the page, counted before anything is removed.
KINDS_OF_ROWS = """(ours) => {
  const ids = new Map();
  for (const root of document.querySelectorAll(ours)) {
    for (const node of root.querySelectorAll('[id]')) ids.set(node.id, (ids.get(node.id) || 0) + 1);
  }
  const seen = new Set();
  for (const table of document.querySelectorAll('table.capmap-cases')) {
    let kept = 0;
    for (const body of table.tBodies) {
      for (const row of [...body.rows]) {
        const kinds = new Set([row, ...row.querySelectorAll('*')].map(
          (e) => e.tagName + '.' + [...e.classList].sort().join('.') + (e.hidden ? '[hidden]' : '')));
        const key = (kept % 2) + ' ' + [...kinds].sort().join(' ');
        if (seen.has(key)) { row.remove(); } else { seen.add(key); kept++; }
      }
    }
    if (kept === 0) table.remove();
  }
  return [...ids].filter(([, n]) => n > 1).map(([id]) => id);
}"""


def serious_in_ours(page: Page, *, kinds_of_rows: bool = False) -> list[str]:
    """axe-core's serious and critical findings in capmap's part of the page (its toolbar and its
    case tables); with `kinds_of_rows`, one row of each kind (KINDS_OF_ROWS), and an id used
    twice is a finding too."""
    found = []
    if kinds_of_rows:
        found += [f"duplicate id: {i}" for i in page.evaluate(KINDS_OF_ROWS, OURS)]
    context = {"include": [[s] for s in OURS.split(", ") if page.locator(s).count()]}
    from test_page_accessibility import serious

    return found + serious(page, context)


@pytest.mark.parametrize("window", [390, 1400], indirect=True, ids=["390px", "1400px"])
@pytest.mark.parametrize("theme", THEMES)
def test_no_serious_axe_violations(sites: dict[str, Path], window: PageSession, theme: str) -> None:
    # The hostile page has every kind of row the published page has (failures, mismatches, causes,
    # details) at a size axe checks in seconds; the published page's toolbar is checked as well.
    page = open_page(window, sites[theme] / "hostile.html")
    page.locator("button.cm-why").first.click()
    assert serious_in_ours(page) == []
    if theme in DARK_THEMES:
        page.emulate_media(color_scheme="dark")
        assert serious_in_ours(page) == []
        page.emulate_media(color_scheme="light")
    # The published page: its statuses, cause links on the theme's striped rows, its toolbar.
    page = open_page(window, sites[theme] / "kornia.html")
    assert serious_in_ours(page, kinds_of_rows=True) == []


@pytest.mark.parametrize("window", [1400], indirect=True, ids=["1400px"])
@pytest.mark.parametrize("theme", THEMES)
def test_hostile_snapshot_stays_inert(sites: dict[str, Path], window: PageSession, theme: str) -> None:
    page = open_page(window, sites[theme] / "hostile.html")
    for button in page.locator("button.cm-why").all():
        button.click()
    assert page.evaluate("window.__pwned") is None
    assert window.dialogs == []
    for root in page.locator(OURS).all():
        assert root.locator(LIVE).count() == 0
        assert root.locator("a[href^='javascript' i]").count() == 0
    tables = page.locator("table.capmap-cases")
    # The HTML and the RST in the names are there, as text: no link, footnote or emphasis.
    assert MARKUP.split("[x]")[0] in tables.first.inner_text()
    assert RST_INLINE in tables.first.inner_text()
    for made in ("a[href*='genindex']", "a.footnote-reference", "span.target", "#target"):
        assert tables.locator(made).count() == 0, made
    assert tables.locator(":is(strong, em)", has_text="bold").count() == 0
    # The messages' RST block reads as text in the failure's details, no directive ran.
    assert ".. raw:: html" in page.locator(".cm-why-panel pre").first.inner_text()

"""The version matrix page (`capmap history`) in headless Chromium, made from the published
Kornia snapshots of two torch versions and Kornia's own data file: regressions first, search
by name, filters, a phone's width, no serious axe violation."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from page_session import PageSession

REPO = Path(__file__).resolve().parents[2]
NEW = REPO / "surveys" / "kornia" / "snapshot.json"
OLD = REPO / "surveys" / "kornia" / "torch-2.9.1" / "snapshot.json"
KORNIA_FILE = REPO.parent / "shared" / "data" / "kornia" / "export_support.json"


@pytest.fixture(scope="module")
def history_page(capmap_bin: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("history")
    columns = [NEW, OLD] + ([KORNIA_FILE] if KORNIA_FILE.exists() else [])
    done = subprocess.run(
        [str(capmap_bin), "history", *map(str, columns), "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "history: torch 2.9.1 → 2.13.0:" in done.stderr
    return out / "history.html"


def _rows(session: PageSession) -> list[list[str]]:
    return [
        [cell.inner_text() for cell in row.locator("td").all()]
        for row in session.page.locator("#cm-table tbody tr").all()
    ]


def test_regressions_come_first_and_filters_narrow(session: PageSession, history_page: Path) -> None:
    page = session.open(history_page)
    headings = page.locator("#cm-table thead th").all_inner_texts()
    assert headings[2].startswith("torch 2.9.1") and "torch 2.13.0" in headings
    # Regressions first, then fixes, then other changes, then rows that stay the same.
    rank = {"k-regression": 0, "k-fixed": 1, "k-changed": 2, "k-same": 3}
    kinds = page.locator("#cm-table tbody tr").evaluate_all("rows => rows.map(r => r.className)")
    assert kinds == sorted(kinds, key=rank.__getitem__) and "k-fixed" in kinds
    first = page.locator("#cm-table tbody tr").first
    phrase = "broke in 2.13.0" if kinds[0] == "k-regression" else "since torch 2.13.0"
    assert phrase in first.locator("td.cm-sum").inner_text()

    page.select_option("#cm-kind", "fixed")
    fixed = _rows(session)
    assert fixed and all("since torch 2.13.0" in row[-1] or "works again" in row[-1] for row in fixed)

    page.select_option("#cm-kind", "")
    page.fill("#cm-q", "warp_affine")
    page.select_option("#cm-path", "onnx")
    found = _rows(session)
    assert found and all("warp_affine" in row[0] and row[1] == "onnx" for row in found)
    assert page.locator("#cm-count").inner_text().startswith(f"{len(found)} of ")
    assert session.errors == []


def test_a_phone_scrolls_the_table_not_the_page(session: PageSession, history_page: Path) -> None:
    session.page.set_viewport_size({"width": 390, "height": 800})
    page = session.open(history_page, "#rgb_to_grayscale")
    assert page.input_value("#cm-q") == "rgb_to_grayscale"
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert page.locator("#cm-table tbody tr").count() > 0
    axe = pytest.importorskip("axe_playwright_python.sync_playwright")
    violations = axe.Axe().run(page).response["violations"]
    assert [v["id"] for v in violations if v["impact"] in ("serious", "critical")] == []


@pytest.mark.parametrize(("width", "height"), [(1400, 900), (390, 800)])
def test_the_header_row_stays_in_view_below_the_toolbar(
    session: PageSession, history_page: Path, width: int, height: int
) -> None:
    session.page.set_viewport_size({"width": width, "height": height})
    page = session.open(history_page)
    page.locator(".cm-scroll").scroll_into_view_if_needed()
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    page.locator(".cm-scroll").evaluate("box => { box.scrollTop = 3000; box.scrollLeft = 200; }")
    toolbar = page.locator(".cm-toolbar").bounding_box()
    box = page.locator(".cm-scroll").bounding_box()
    header = page.locator("#cm-table thead th").first.bounding_box()
    first_row = page.locator("#cm-table tbody tr").first.bounding_box()
    assert toolbar and box and header and first_row
    # The rows scrolled away under the header; the header sits at the top of the table's box,
    # at its left edge, and below the toolbar.
    assert first_row["y"] < box["y"]
    assert abs(header["y"] - box["y"]) <= 2 and abs(header["x"] - box["x"]) <= 2
    assert header["y"] >= toolbar["y"] + toolbar["height"] - 1

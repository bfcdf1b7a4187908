"""The repro marks and the "repro" action of the HTML page, in real headless Chromium."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from page_session import PageSession
from playwright.sync_api import Browser
from snapshots import small_snapshot

# Scripts end with the same helpers copied from capmap; the page keeps one copy of them.
HELPERS = (
    "\n# capmap's output flattening and comparison, copied from capmap.\n\ndef compare(a, b):\n    pass\n"
)
REPRODUCED_SCRIPT = (
    "# Reproduces capmap's record of case 'warp_affine[bilinear]', path 'onnx', outside capmap.\n"
    "# Expected outcome: fail: data-dependent output shape\n"
    'print("<b>not markup</b>")\n' + HELPERS
)
NOT_REPRODUCED_SCRIPT = (
    "# Reproduces capmap's record of case 'warp_affine[bilinear]', path 'export'.\n" + HELPERS
)


def repro_snapshot() -> dict[str, Any]:
    snapshot = small_snapshot()
    paths = next(c for c in snapshot["cases"] if c["name"] == "warp_affine[bilinear]")["paths"]
    paths["onnx"].update(
        reproduced=True,
        repro_outcome="export-fail (DataDependentError): shape",
        repro_script=REPRODUCED_SCRIPT,
    )
    paths["export"].update(reproduced=False, repro_outcome="ok", repro_script=NOT_REPRODUCED_SCRIPT)
    return snapshot


@pytest.fixture
def repro_page(render_page: Callable[..., Path]) -> Path:
    return render_page(repro_snapshot(), "repro")


@pytest.fixture
def clipboard_session(browser: Browser) -> Iterator[PageSession]:
    context = browser.new_context(
        viewport={"width": 1280, "height": 900}, permissions=["clipboard-read", "clipboard-write"]
    )
    yield PageSession(context.new_page())
    context.close()


def row_cells(session: PageSession, case: str) -> Any:
    operator, variant = case.split("[", 1)
    rows = session.page.locator("#cm-tables tbody tr").filter(
        has=session.page.locator(f'td.op code:text-is("{operator}")')
    )
    return rows.filter(has=session.page.locator(f'td:text-is("{variant[:-1]}")')).first.locator("td")


def test_checked_paths_carry_a_mark_and_a_repro_button(session: PageSession, repro_page: Path) -> None:
    page = session.open(repro_page)
    cells = row_cells(session, "warp_affine[bilinear]")
    onnx, export, compile_ = cells.nth(2), cells.nth(3), cells.nth(4)
    # The text itself: a section the browser has not laid out yet has no rendered text.
    assert onnx.locator(".cm-repro-mark").text_content() == "\u2713"
    assert "Reproduced outside capmap" in onnx.locator(".cm-repro-mark").get_attribute("title")
    assert export.locator(".cm-repro-mark").text_content() == "\u2717"
    assert "Did not reproduce outside capmap: ok" == export.locator(".cm-repro-mark").get_attribute("title")
    assert compile_.locator("button.cm-repro").count() == 0
    # Only the two checked paths of the whole page have the action.
    assert page.locator("button.cm-repro").count() == 2
    assert session.errors == []


def test_repro_action_shows_the_whole_script_and_copies_it(
    clipboard_session: PageSession, repro_page: Path
) -> None:
    session = clipboard_session
    page = session.open(repro_page)
    cells = row_cells(session, "warp_affine[bilinear]")
    cells.nth(2).locator("button.cm-repro").click()
    dialog = page.locator("dialog#cm-repro-dialog")
    assert dialog.is_visible()
    assert dialog.locator("h3").inner_text() == "Repro: warp_affine[bilinear] \u00b7 ONNX"
    assert "Reproduced outside capmap: export-fail (DataDependentError): shape" in dialog.inner_text()
    assert "capmap repro 'warp_affine[bilinear]' --path onnx" in dialog.inner_text()
    # The script is the stored text, helpers put back, shown as text and never parsed as HTML.
    assert dialog.locator("pre code").text_content() == REPRODUCED_SCRIPT
    assert dialog.locator("pre b").count() == 0
    dialog.locator("button.cm-repro-copy").click()
    page.wait_for_function("document.querySelector('.cm-repro-copy').textContent === 'Copied'")
    assert page.evaluate("navigator.clipboard.readText()") == REPRODUCED_SCRIPT
    dialog.locator("button.cm-repro-close").click()
    assert not dialog.is_visible()
    # Another path's action fills the same dialog with its own script; Escape closes it.
    cells.nth(3).locator("button.cm-repro").click()
    assert dialog.locator("pre code").text_content() == NOT_REPRODUCED_SCRIPT
    assert "Did not reproduce outside capmap: ok" in dialog.inner_text()
    page.keyboard.press("Escape")
    assert not dialog.is_visible()
    assert session.errors == []


def test_the_repro_action_is_reached_by_keyboard(session: PageSession, repro_page: Path) -> None:
    page = session.open(repro_page)
    button = row_cells(session, "warp_affine[bilinear]").nth(2).locator("button.cm-repro")
    assert "warp_affine[bilinear], ONNX" in button.get_attribute("aria-label")
    button.focus()
    page.keyboard.press("Enter")
    assert page.locator("dialog#cm-repro-dialog").is_visible()
    assert page.evaluate("document.activeElement.className") == "cm-repro-copy"

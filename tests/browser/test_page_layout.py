"""Reaching the data: the toolbar on the first screen and in view, sticky headers,
phone cards, and no element wider than a phone's screen."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from page_session import PageSession
from playwright.sync_api import Page
from snapshots import public_names_snapshot, small_snapshot, synthetic_snapshot

# Elements wider than the viewport, or reaching past its right edge, outside a
# sideways-scrolling region that says it scrolls (.cm-wide).
TOO_WIDE = """() => {
  const width = document.documentElement.clientWidth;
  const out = [];
  for (const node of document.body.querySelectorAll('*')) {
    if (node.closest('.cm-wide') && !node.classList.contains('cm-wide')) continue;
    const box = node.getBoundingClientRect();
    if (box.width === 0 && box.height === 0) continue;
    if (box.right > width + 1 || box.left < -1) {
      const name = `${node.tagName.toLowerCase()}.${node.className}`;
      out.push(`${name} ${Math.round(box.left)}..${Math.round(box.right)}`);
    }
  }
  return out.slice(0, 10);
}"""


@pytest.fixture
def big_page(render_page: Callable[..., Path]) -> Path:
    return render_page(synthetic_snapshot(300), "big")


def box(page: Page, selector: str) -> dict[str, float]:
    return page.evaluate(
        "(s) => { const b = document.querySelector(s).getBoundingClientRect();"
        " return {top: b.top, bottom: b.bottom, left: b.left, right: b.right}; }",
        selector,
    )


def test_search_is_on_the_first_screen_and_stays_in_view(desktop: PageSession, big_page: Path) -> None:
    page = desktop.open(big_page)
    assert desktop.errors == []
    assert box(page, "#cm-q")["bottom"] < 300
    assert "/" in (page.locator("#cm-q").get_attribute("placeholder") or "")
    assert page.locator("#cm-cat").is_visible() and page.locator('button[data-view="fail"]').is_visible()
    page.mouse.wheel(0, 6000)
    page.wait_for_function("window.scrollY > 3000")
    search = box(page, "#cm-q")
    assert 0 <= search["top"] and search["bottom"] < 200
    assert page.locator("#cm-cat").is_visible()


def test_case_table_headers_stick_below_the_toolbar(desktop: PageSession, big_page: Path) -> None:
    page = desktop.open(big_page)
    toolbar = box(page, "#cm-controls")
    # Scroll into the middle of the first section's table.
    page.evaluate(
        "() => { const t = document.querySelector('#cm-tables table');"
        " window.scrollTo(0, t.getBoundingClientRect().top + scrollY + 400); }"
    )
    page.wait_for_timeout(50)
    toolbar = box(page, "#cm-controls")
    head = box(page, "#cm-tables table thead th")
    assert toolbar["top"] == 0
    assert abs(head["top"] - toolbar["bottom"]) <= 2, (head, toolbar)


def test_typing_from_the_top_brings_the_rows_into_view(desktop: PageSession, big_page: Path) -> None:
    page = desktop.open(big_page)
    page.locator("#cm-q").press_sequentially("geometry_op_00")
    first = page.locator("#cm-tables tbody tr:not([hidden])").first
    row = first.bounding_box()
    assert row is not None and 0 <= row["y"] < 900


def test_keyboard_reaches_search_in_few_tabs(desktop: PageSession, big_page: Path) -> None:
    page = desktop.open(big_page)
    presses = 0
    while presses < 4 and page.evaluate("document.activeElement.id") != "cm-q":
        page.keyboard.press("Tab")
        presses += 1
    assert page.evaluate("document.activeElement.id") == "cm-q"


def test_phone_shows_cards_and_nothing_wider_than_the_screen(
    phone: PageSession, render_page: Callable[..., Path]
) -> None:
    html = render_page(public_names_snapshot(), "names")
    page = phone.open(html)
    assert phone.errors == []
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert page.evaluate(TOO_WIDE) == []
    # Each case is a card: the row is a flex box, the header row is not shown.
    assert page.evaluate("getComputedStyle(document.querySelector('#cm-tables tbody tr')).display") == "flex"
    assert not page.locator("#cm-tables thead").first.is_visible()
    card = page.locator("#cm-tables tbody tr", has=page.locator("td.op code", has_text="warp_perspective"))
    op, badge, cause = (card.locator(s).first.bounding_box() for s in ("td.op", ".badge", ".cause"))
    assert op and badge and cause and op["y"] < badge["y"] < cause["y"]
    assert op["width"] > 300  # the name has the card's whole width
    # Badges say which path they are for.
    label = page.evaluate(
        "getComputedStyle(document.querySelector('#cm-tables td.path'), '::before').content"
    )
    assert "ONNX" in label
    # The by-package table may scroll sideways, and says so.
    assert page.locator(".cm-scroll-cue").is_visible()
    # Filters fold behind a button; opening them keeps the page within the screen.
    assert not page.locator("#cm-cat").is_visible()
    page.locator(".cm-filters-toggle").click()
    assert page.locator("#cm-cat").is_visible()
    assert page.evaluate(TOO_WIDE) == []
    page.locator('button[data-view="fail"]').click()
    assert page.locator(".cm-filters-toggle").inner_text() == "Filters (1)"
    # Details of a failure stay inside the card too.
    card.locator("button.cm-why").first.click()
    assert page.evaluate(TOO_WIDE) == []


def test_the_search_example_is_a_name_of_the_surveyed_library(
    desktop: PageSession, render_page: Callable[..., Path]
) -> None:
    """Another library's page offers one of its own names, never Kornia's."""
    snapshot = small_snapshot()
    snapshot["header"]["library"]["name"] = "monai"
    for c in snapshot["cases"]:
        # Packages of its own: Kornia's example with monai's root would name no case here.
        c["ref"] = "monai.transforms." + c["ref"].rsplit(".", 1)[1]
    page = desktop.open(render_page(snapshot, "monai"))
    assert desktop.errors == []
    placeholder = page.locator("#cm-q").get_attribute("placeholder") or ""
    names = {c["ref"] for c in snapshot["cases"]}
    example = placeholder.removeprefix("Name, e.g. ").removesuffix(" — press /")
    assert example in names and "kornia" not in placeholder, placeholder
    page.fill("#cm-q", "no_such_operator_anywhere")
    hint = page.locator("#cm-tables").inner_text() + page.locator("body").inner_text()
    assert f"Names are searched as written in the library ({example})" in hint

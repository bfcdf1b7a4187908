"""The HTML page in real headless Chromium: loading, search, filters, fragment, escaping, scale."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from urllib.parse import quote

import pytest
from page_session import PageSession
from playwright.sync_api import Page
from snapshots import HOSTILE, hostile_snapshot, small_snapshot, synthetic_snapshot

ALL = {
    "canny",
    "find_homography_dlt",
    "random_crop",
    "rgb_to_gray",
    "rgb_to_hsv",
    "warp_affine[bilinear]",
    "warp_affine[nearest]",
}

VISIBLE_CASES = """() => Array.from(document.querySelectorAll('#cm-tables tbody tr'))
  .filter(r => !r.hidden && !r.closest('section').hidden)
  .map(r => {
    const op = r.querySelector('td.op code').textContent;
    const variant = r.cells[1].textContent;
    return variant ? `${op}[${variant}]` : op;
  })"""


def visible(page: Page) -> set[str]:
    return set(page.evaluate(VISIBLE_CASES))


def status_text(page: Page) -> str:
    return page.locator("#cm-status").inner_text()


def view_count(page: Page, view: str) -> int:
    return int(page.locator(f'button[data-view="{view}"] .n').inner_text())


@pytest.fixture
def small_page(render_page: Callable[..., Path]) -> Path:
    return render_page(small_snapshot(), "small")


def test_page_loads_without_console_errors(session: PageSession, small_page: Path) -> None:
    page = session.open(small_page)
    assert session.errors == []
    assert "kornia 0.9.0" in page.locator("h1").inner_text()
    # The run facts fold into "Run details"; their text is there.
    header = page.locator(".cm-facts").text_content() or ""
    for fact in ("0123456789abcdef", "2.13.0", "cpu", "2026-01-15T12:00:00Z", "complete"):
        assert fact in header
    cards = page.locator(".cm-card").all_inner_texts()
    assert cards[0].startswith("ONNX") and "3 / 6" in cards[0] and "50.0 %" in cards[0]
    assert "4 / 6" in cards[1] and "4 / 6" in cards[2]
    # Every card divides by the cases probed on its paths: random_crop was not run.
    assert "2 / 6" in cards[3]
    assert "5" in cards[4] and "distinct operators" in cards[4]
    assert visible(page) == ALL
    assert status_text(page) == "Showing 7 of 7 cases"


def test_typing_a_search_narrows_rows_and_counts(session: PageSession, small_page: Path) -> None:
    page = session.open(small_page)
    page.locator("#cm-q").press_sequentially("warp")
    assert visible(page) == {"warp_affine[bilinear]", "warp_affine[nearest]"}
    assert status_text(page) == "Showing 2 of 7 cases"
    assert view_count(page, "all") == 2
    assert view_count(page, "fail-export") == 1
    assert view_count(page, "allok") == 0
    # Several words must all match; causes and notes are searched too.
    page.locator("#cm-q").fill("affine align_corners")
    assert visible(page) == {"warp_affine[bilinear]"}
    page.locator("#cm-q").fill("linalg_svd")
    assert visible(page) == {"find_homography_dlt"}
    page.locator("#cm-q").fill("")
    assert visible(page) == ALL


@pytest.mark.parametrize(
    ("view", "expected"),
    [
        ("all", ALL),
        ("fail", {"warp_affine[bilinear]", "warp_affine[nearest]", "find_homography_dlt", "canny"}),
        ("fail-onnx", {"warp_affine[bilinear]", "warp_affine[nearest]", "find_homography_dlt"}),
        ("fail-export", {"warp_affine[bilinear]", "canny"}),
        ("fail-compile", {"find_homography_dlt", "canny"}),
        ("breaks", {"rgb_to_hsv"}),
        ("allok", {"rgb_to_gray", "rgb_to_hsv"}),
    ],
)
def test_each_view_shows_what_it_claims(
    session: PageSession, small_page: Path, view: str, expected: set[str]
) -> None:
    page = session.open(small_page)
    assert view_count(page, view) == len(expected)
    page.locator(f'button[data-view="{view}"]').click()
    assert visible(page) == expected
    assert page.locator(f'button[data-view="{view}"]').get_attribute("aria-pressed") == "true"
    assert status_text(page) == f"Showing {len(expected)} of 7 cases"


@pytest.mark.parametrize(
    ("category", "expected"),
    [
        ("data-dependent", {"warp_affine[bilinear]"}),
        ("control-flow", {"rgb_to_hsv"}),
        ("missing-onnx-lowering", {"find_homography_dlt"}),
        ("crash", {"canny"}),
        ("not-applicable", {"random_crop"}),
    ],
)
def test_cause_category_filter(
    session: PageSession, small_page: Path, category: str, expected: set[str]
) -> None:
    page = session.open(small_page)
    page.locator("#cm-cat").select_option(category)
    assert visible(page) == expected


def test_package_filter_and_summary_link(session: PageSession, small_page: Path) -> None:
    page = session.open(small_page)
    page.locator("#cm-pkg").select_option("geometry")
    geometry = {"warp_affine[bilinear]", "warp_affine[nearest]", "find_homography_dlt"}
    assert visible(page) == geometry
    # Package filter and view combine; the other views' counts follow the package.
    assert view_count(page, "fail-onnx") == 3
    assert view_count(page, "fail-compile") == 1
    page.locator("#cm-pkg").select_option("")
    page.locator('button[data-package="color"]').click()
    assert visible(page) == {"rgb_to_gray", "rgb_to_hsv"}


def test_top_cause_filters_the_table(session: PageSession, small_page: Path) -> None:
    page = session.open(small_page)
    # Listed under ONNX and under export: each shows its path's failures.
    page.locator('button[data-cause="data-dependent output shape"][data-path="onnx"]').click()
    assert visible(page) == {"warp_affine[bilinear]"}
    assert page.locator('button[data-view="fail-onnx"]').get_attribute("aria-pressed") == "true"
    assert "data-dependent output shape" in page.locator(".cm-chip").inner_text()
    page.locator(".cm-chip button").click()
    assert visible(page) == {"warp_affine[bilinear]", "warp_affine[nearest]", "find_homography_dlt"}


def test_shared_cause_is_shown_once_with_its_source_link(session: PageSession, small_page: Path) -> None:
    page = session.open(small_page)
    row = page.locator("#cm-tables tbody tr", has_text="align_corners=True")
    causes = row.locator(".cause")
    assert causes.count() == 1
    assert causes.inner_text() == (
        "ONNX, export: data-dependent output shape (kornia/geometry/transform/imgwarp.py:120)"
    )
    assert causes.locator("a").get_attribute("href") == (
        "https://github.com/kornia/kornia/blob/0123456789abcdef/kornia/geometry/transform/imgwarp.py#L120"
    )
    badges = row.locator(".badge").all_inner_texts()
    assert badges == ["fail", "fail", "ok"]
    docs = row.locator("td.op a").get_attribute("href")
    assert (
        docs == "https://kornia.readthedocs.io/en/latest/search.html?q=kornia.geometry.transform.warp_affine"
    )


def test_url_fragment_restores_a_view(session: PageSession, small_page: Path) -> None:
    page = session.open(small_page, "#view=fail-onnx&q=affine")
    assert visible(page) == {"warp_affine[bilinear]", "warp_affine[nearest]"}
    assert page.locator("#cm-q").input_value() == "affine"
    # Changing the view writes the fragment, and a reload comes back to it.
    page.locator('button[data-view="fail-export"]').click()
    page.locator("#cm-cat").select_option("data-dependent")
    assert "view=fail-export" in page.url and "cat=data-dependent" in page.url
    page.reload()
    page.wait_for_selector("html[data-capmap-complete]")
    assert visible(page) == {"warp_affine[bilinear]"}
    assert page.locator("#cm-cat").input_value() == "data-dependent"
    # A pasted fragment naming a cause restores that filter too.
    page.goto(small_page.as_uri() + "#cause=" + quote("timed out after 300 s"))
    page.wait_for_selector("html[data-capmap-complete]")
    assert visible(page) == {"find_homography_dlt"}


def test_keyboard_only(session: PageSession, small_page: Path) -> None:
    page = session.open(small_page)
    page.locator("body").press("/")
    assert page.evaluate("document.activeElement.id") == "cm-q"
    page.keyboard.type("canny")
    assert visible(page) == {"canny"}
    # Tab from the search box reaches the view buttons; Enter presses one.
    for _ in range(10):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.dataset.view") == "fail-export":
            break
    assert page.evaluate("document.activeElement.dataset.view") == "fail-export"
    page.keyboard.press("Enter")
    assert visible(page) == {"canny"}
    assert page.locator('button[data-view="fail-export"]').get_attribute("aria-pressed") == "true"


def test_follows_dark_preference_and_prints_without_controls(session: PageSession, small_page: Path) -> None:
    page = session.open(small_page)
    page.emulate_media(color_scheme="dark")
    dark = page.evaluate("getComputedStyle(document.body).backgroundColor")
    page.emulate_media(color_scheme="light")
    light = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert dark != light and light == "rgb(255, 255, 255)"
    page.emulate_media(media="print")
    assert not page.locator(".cm-controls").is_visible()
    assert page.locator("#cm-tables").is_visible()


def test_html_and_js_in_the_snapshot_stay_inert(
    session: PageSession, render_page: Callable[..., Path]
) -> None:
    html = render_page(hostile_snapshot(), "hostile")
    page = session.open(html)
    assert session.errors == []
    assert session.dialogs == []
    assert page.evaluate("window.__pwned") is None
    assert page.locator("img").count() == 0
    assert page.locator("#cm-tables td.op code", has_text=HOSTILE).count() == 1
    assert "</script><script>window.__pwned = 3</script>" in page.locator("#cm-tables").inner_text()
    assert "<i>lib</i>" in page.locator("h1").inner_text()
    assert page.title().startswith("<i>lib</i>")
    # The untouched placeholder text proves the template is filled in one pass.
    assert "@@DATA@@" in page.locator("#cm-tables").inner_text()
    page.locator('button[data-cause="</script><script>window.__pwned = 3</script>"]').click()
    assert page.locator("#cm-status").inner_text() == "Showing 1 of 2 cases"
    assert page.evaluate("window.__pwned") is None


def test_five_thousand_cases_render_and_filter(
    session: PageSession, render_page: Callable[..., Path]
) -> None:
    html = render_page(synthetic_snapshot(5000), "large")
    page = session.open(html)
    assert session.errors == []
    assert status_text(page) == "Showing 5000 of 5000 cases"
    assert page.locator("#cm-tables tbody tr").count() == 5000
    page.locator("#cm-q").press_sequentially("geometry_op_0001")
    shown = int(page.locator("#cm-status").get_attribute("data-shown") or "0")
    assert 0 < shown < 5000
    assert len(visible(page)) == shown

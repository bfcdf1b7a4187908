"""A path's own figure for its cell (the executorch path's delegated share) under the badge, in
real Chromium: in the table on a desktop and in the card on a phone, within the screen."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from page_session import PageSession
from snapshots import case, header, path_result

PATHS = ["eager", "onnx", "export", "executorch", "compile"]
WHOLE = "XNNPACK runs 14 of 14 nodes (100 %)"
PART = "XNNPACK runs 3 of 9 nodes (33 %)"
NONE = "XNNPACK runs none of 4 nodes (all portable)"


def figured(status: str, figure: str) -> dict[str, Any]:
    return {**path_result(status), "figure": figure}


def executorch_snapshot() -> dict[str, Any]:
    info = {
        "eager": {"label": "eager", "short": "eager", "order": 0, "reference": True},
        "onnx": {"label": "ONNX", "short": "ONNX", "order": 10},
        "export": {"label": "torch.export", "short": "export", "order": 20},
        "executorch": {"label": "ExecuTorch (XNNPACK)", "short": "ExecuTorch", "order": 27},
        "compile": {"label": "torch.compile", "short": "compile", "order": 30},
    }
    ok = path_result("ok")
    rows = [
        ("rgb_to_grayscale", "color.gray", figured("ok", WHOLE)),
        ("rgb_to_hsv", "color.hsv", figured("ok", PART)),
        ("vflip", "geometry.transform", figured("ok", NONE)),
    ]
    return {
        "schema_version": 1,
        "header": header(paths=PATHS, path_info=info),
        "cases": [
            case(name, group, {**{p: ok for p in PATHS}, "executorch": et}) for name, group, et in rows
        ],
    }


def figure_below_badge(page: Any, operator: str, text: str) -> None:
    row = page.locator("#cm-tables tbody tr", has=page.locator("td.op code", has_text=operator))
    cell = row.locator("td.path", has=page.locator(".cm-figure"))
    assert cell.count() == 1  # only the executorch cell has a figure
    # The number keeps its percent sign on its line (a no-break space between them).
    assert cell.locator(".cm-figure").inner_text() == text.replace(" %", "\u00a0%")
    badge = cell.locator(".badge").bounding_box()
    figure = cell.locator(".cm-figure").bounding_box()
    box = cell.bounding_box()
    assert badge and figure and box
    assert figure["y"] >= badge["y"] + badge["height"] - 1  # under the badge, not beside it
    assert box["x"] - 1 <= figure["x"] and figure["x"] + figure["width"] <= box["x"] + box["width"] + 1


def test_the_delegated_share_sits_under_its_badge_on_a_desktop(
    desktop: PageSession, render_page: Callable[..., Path]
) -> None:
    page = desktop.open(render_page(executorch_snapshot(), "figures"))
    assert desktop.errors == []
    for operator, text in (("rgb_to_grayscale", WHOLE), ("rgb_to_hsv", PART), ("vflip", NONE)):
        figure_below_badge(page, operator, text)
    headers = page.locator("#cm-tables table").first.locator("th").all_inner_texts()
    assert "ExecuTorch (XNNPACK)" in headers


def test_the_delegated_share_stays_in_the_card_on_a_phone(
    phone: PageSession, render_page: Callable[..., Path]
) -> None:
    page = phone.open(render_page(executorch_snapshot(), "figures"))
    assert phone.errors == []
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    figure_below_badge(page, "rgb_to_hsv", PART)
    label = page.evaluate(
        "[...document.querySelectorAll('#cm-tables td.path')]"
        ".filter(td => td.querySelector('.cm-figure'))"
        ".map(td => getComputedStyle(td, '::before').content)[0]"
    )
    assert "ExecuTorch" in label

"""A snapshot with more capture paths than the four built-in ones: the page takes its columns,
cards, views and cause lines from the header's paths and their descriptions, in real Chromium."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from page_session import PageSession
from snapshots import case, header, path_result

PATHS = ["eager", "onnx", "onnx-dynamic", "export", "export-dynamic", "aoti", "compile"]
LABELS = {
    "eager": ("eager", "eager"),
    "onnx": ("ONNX", "ONNX"),
    "onnx-dynamic": ("ONNX, dynamic shapes", "ONNX dyn"),
    "export": ("torch.export", "export"),
    "export-dynamic": ("torch.export, dynamic shapes", "export dyn"),
    "aoti": ("AOTInductor", "AOTI"),
    "compile": ("torch.compile", "compile"),
}
PINNED = "Export pinned a size meant to vary (input 0 dim 0 (batch) = 2)"


def seven_path_snapshot() -> dict[str, Any]:
    info = {
        name: {"label": label, "short": short, "order": i * 10, "reference": name == "eager"}
        for i, (name, (label, short)) in enumerate(LABELS.items())
    }
    ok = path_result("ok")
    pinned = path_result("specialized", PINNED, "dynamic-shape", "kornia/color/gray.py:12 in rgb_to_gray")
    everywhere_ok = {p: ok for p in PATHS}
    batch_two = {**everywhere_ok, "export-dynamic": pinned, "onnx-dynamic": pinned}
    cxx = path_result("fail", "Inductor's generated C++ failed to build", "torch-bug")
    no_aoti = {**everywhere_ok, "aoti": cxx}
    return {
        "schema_version": 1,
        "header": header(paths=PATHS, path_info=info),
        "cases": [
            case("rgb_to_gray", "color.gray", batch_two),
            case("rgb_to_hsv", "color.hsv", everywhere_ok),
            case("warp_affine", "geometry.transform", no_aoti),
        ],
    }


def test_every_path_of_the_snapshot_is_a_column_a_card_and_a_view(
    session: PageSession, render_page: Callable[..., Path]
) -> None:
    page = session.open(render_page(seven_path_snapshot(), "seven"))
    assert session.errors == []
    columns = page.locator("#cm-tables table").first.locator("th").all_inner_texts()
    shown = [LABELS[p][0] for p in PATHS[1:]]
    assert [c for c in columns if c in shown] == shown  # page order; eager is no column
    cards = page.locator(".cm-card").all_inner_texts()
    assert [c.split("\n")[0] for c in cards[: len(shown)]] == shown
    supported = [card.split("\n")[2] for card in cards[: len(shown)]]
    assert supported == ["3 / 3", "2 / 3", "3 / 3", "2 / 3", "2 / 3", "3 / 3"]
    for path in PATHS[1:]:
        assert page.locator(f'button[data-view="fail-{path}"]').count() == 1


def test_a_specialized_path_is_a_failure_with_its_cause_on_one_line(
    session: PageSession, render_page: Callable[..., Path]
) -> None:
    page = session.open(render_page(seven_path_snapshot(), "seven"), "#view=fail-export-dynamic")
    assert session.errors == []
    rows = page.locator("#cm-tables tbody tr:not([hidden])")
    assert rows.count() == 1 and "rgb_to_gray" in rows.first.inner_text()
    badges = rows.first.locator(".st-specialized")
    assert badges.count() == 2 and badges.first.inner_text() == "specialized"
    # One cause, two paths: the line names both by their short labels.
    assert rows.first.locator("td").last.inner_text().startswith("ONNX dyn, export dyn")
    assert PINNED in rows.first.inner_text()
    page.locator('button[data-view="fail-aoti"]').click()
    assert rows.locator("td.op code").all_inner_texts() == ["warp_affine"]

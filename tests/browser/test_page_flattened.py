"""The row note says what the capture wrapper opened, in real Chromium, and search finds it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from page_session import PageSession
from snapshots import small_snapshot

LINES = ["input Vector3 → 1 tensor", "output Boxes → 2 tensors"]


def test_the_row_note_lists_what_was_flattened(
    session: PageSession, render_page: Callable[..., Path]
) -> None:
    snapshot = small_snapshot()
    warp = next(c for c in snapshot["cases"] if c["name"] == "warp_affine[bilinear]")
    for path in ("onnx", "export"):
        warp["paths"][path]["flattened"] = LINES
    page = session.open(render_page(snapshot, "flattened"))
    assert session.errors == []
    notes = page.locator("td.op .note.flattened")
    assert notes.count() == 1  # one case, shown once though two paths carry the lines
    # Sections off screen are laid out lazily (content-visibility): bring the row into view.
    notes.scroll_into_view_if_needed()
    assert notes.inner_text() == "flattened: input Vector3 → 1 tensor; output Boxes → 2 tensors"
    row = page.locator("tr", has=notes)
    assert row.locator("td.op code").inner_text() == "warp_affine"
    # The case's own note stays, above the flattening line.
    assert row.locator(".note").first.inner_text() == "align_corners=True"
    page.fill("#cm-q", "boxes")
    page.wait_for_function("document.querySelector('#cm-status').dataset.shown === '1'")
    assert row.is_visible()

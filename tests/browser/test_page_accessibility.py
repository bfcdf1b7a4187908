"""axe-core finds no serious or critical violation on the page, at desktop and phone
width, with a failure's details open (skipped when axe-playwright-python is absent)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from page_session import PageSession
from playwright.sync_api import Page
from snapshots import public_names_snapshot

axe_module = pytest.importorskip("axe_playwright_python.sync_playwright")


def serious(page: Page, context: dict[str, Any] | None = None) -> list[str]:
    """axe-core's serious and critical findings, in `context` (axe's include/exclude) if given."""
    results: Any = axe_module.Axe().run(page, context=context)
    found = []
    for violation in results.response["violations"]:
        if violation["impact"] in ("serious", "critical"):
            targets = [n["target"] for n in violation["nodes"]][:3]
            found.append(f"{violation['id']}: {violation['help']} {targets}")
    return found


@pytest.mark.parametrize("width", [1400, 390])
def test_no_serious_axe_violations(
    session: PageSession, render_page: Callable[..., Path], width: int
) -> None:
    session.page.set_viewport_size({"width": width, "height": 900})
    page = session.open(render_page(public_names_snapshot(), "names"))
    row = page.locator("#cm-tables tbody tr", has=page.locator("td.op code", has_text="RandomGaussianNoise"))
    row.locator("button.cm-why").click()
    assert serious(page) == []
    page.emulate_media(color_scheme="dark")
    assert serious(page) == []

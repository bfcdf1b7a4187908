"""A page of part of the registry says so, in real Chromium: the facts line and the case count."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from page_session import PageSession
from snapshots import small_snapshot


def with_selection(selection: dict[str, Any] | None) -> dict[str, Any]:
    snapshot = small_snapshot()
    snapshot["header"]["selection"] = selection
    return snapshot


def selection_fact(session: PageSession, html: Path) -> tuple[str, str, str]:
    """The Selection fact's text and class, and the case count line, as the page shows them."""
    page = session.open(html)
    assert session.errors == []
    facts = page.locator(".cm-facts div", has=page.locator("dt", has_text="Selection"))
    if facts.count() == 0:
        return "", "", page.locator("#cm-status").inner_text()
    value = facts.locator("dd")
    # The facts fold into "Run details"; their text and marks are there.
    return (
        (value.text_content() or "").strip(),
        value.get_attribute("class") or "",
        page.locator("#cm-status").inner_text(),
    )


def test_a_partial_run_says_so_on_the_facts_line_and_beside_the_count(
    session: PageSession, render_page: Callable[..., Path]
) -> None:
    partial = {"registry_cases": 1371, "cases": 7, "only": [], "tags": ["quick"], "shard": None}
    text, css, status = selection_fact(session, render_page(with_selection(partial), "partial"))
    assert text == "7 of 1,371 registry cases (tag quick)"
    assert css == "cm-warn"
    assert status == "Showing 7 of 7 cases · the run measured 7 of 1,371 registry cases (tag quick)"
    # A partial run is said outside the folded details too.
    warning = session.page.locator("header p.cm-warn")
    assert warning.is_visible() and warning.inner_text() == "Selection: 7 of 1,371 registry cases (tag quick)"


def test_the_whole_registry_is_a_plain_fact(session: PageSession, render_page: Callable[..., Path]) -> None:
    whole = {"registry_cases": 7, "cases": 7, "only": [], "tags": [], "shard": None}
    text, css, status = selection_fact(session, render_page(with_selection(whole), "whole"))
    assert (text, css) == ("all 7 registry cases", "")
    assert status == "Showing 7 of 7 cases"


def test_an_older_snapshot_shows_no_selection(session: PageSession, render_page: Callable[..., Path]) -> None:
    snapshot = small_snapshot()
    assert "selection" not in snapshot["header"]
    text, _, status = selection_fact(session, render_page(snapshot, "older"))
    assert text == ""
    assert status == "Showing 7 of 7 cases"

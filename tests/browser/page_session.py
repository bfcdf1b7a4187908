"""A Chromium page that remembers its console errors, uncaught exceptions and dialogs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from playwright.sync_api import Page


class PageSession:
    """A page plus every console error and uncaught exception it produced."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(str(e)))

        def on_dialog(dialog: Any) -> None:
            self.dialogs.append(dialog.message)
            dialog.dismiss()

        page.on("dialog", on_dialog)

    def open(self, html: Path, fragment: str = "") -> Page:
        self.page.goto(html.as_uri() + fragment)
        self.page.wait_for_selector("html[data-capmap-complete]")
        return self.page

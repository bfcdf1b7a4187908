"""Fixtures for the page tests: the real capmap binary and Debian's headless Chromium."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent))

from page_session import PageSession  # noqa: E402
from snapshots import write_snapshot  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"


@pytest.fixture(scope="session")
def capmap_bin() -> Path:
    """The C++ binary under test. Missing is a failure, never a silent skip."""
    for candidate in filter(
        None, [os.environ.get("CAPMAP_BIN", ""), str(REPO / "build" / "tests" / "capmap")]
    ):
        if os.access(candidate, os.X_OK):
            return Path(candidate)
    pytest.fail("capmap binary not found: set CAPMAP_BIN or build build/tests/capmap")


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium (scripts/setup.sh)")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM)
        yield b
        b.close()


@pytest.fixture
def render_page(capmap_bin: Path, tmp_path: Path) -> Callable[..., Path]:
    """Writes a snapshot and renders it with `capmap render`; returns the HTML path."""

    def render(snapshot: dict[str, Any], name: str = "page", *flags: str) -> Path:
        snap = write_snapshot(snapshot, tmp_path / f"{name}.json")
        html = tmp_path / f"{name}.html"
        done = subprocess.run(
            [str(capmap_bin), "render", str(snap), "--html", str(html), *flags],
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        return html

    return render


@pytest.fixture
def session(browser: Browser) -> Iterator[PageSession]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    yield PageSession(context.new_page())
    context.close()


@pytest.fixture
def phone(browser: Browser) -> Iterator[PageSession]:
    """A phone's screen (390 px wide, touch): the page shows a card per case."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    yield PageSession(context.new_page())
    context.close()


@pytest.fixture
def desktop(browser: Browser) -> Iterator[PageSession]:
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    yield PageSession(context.new_page())
    context.close()

"""What axe-core's check of the published Kornia page costs, by the part of the page it reads.

    CAPMAP_BIN=build/tests/capmap PYTHONPATH=python python bench/axe_cost.py [--width PX] [--theme T]

Builds the published Kornia survey's page with `capmap.sphinx` in a Sphinx theme (furo by default,
as tests/browser/test_sphinx_themes.py builds it), opens it in Debian's Chromium and times
axe-core (serious and critical findings only, as the tests ask) on: the toolbar and the first six
case tables (286 rows), the toolbar and one row of each kind from every table (the tests' way:
tests/browser/test_sphinx_themes.py, KINDS_OF_ROWS), and the whole page. Prints the seconds and
the elements left in the page for each.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page, sync_playwright

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "browser"))
from test_sphinx_themes import KINDS_OF_ROWS, OURS, build_site  # noqa: E402

# Every way's preparation takes the selector of capmap's part of the page, used or not.
FIRST_SIX = """(ours) => document.querySelectorAll('table.capmap-cases').forEach((t, i) => {
  if (i < 6) t.dataset.axe = '1'; })"""


def timed_axe(page: Page, parts: list[str]) -> tuple[float, int]:
    context = {"include": [[p] for p in parts if page.locator(p).count()]}
    started = time.perf_counter()
    results = Axe().run(page, context=context)
    found = [v for v in results.response["violations"] if v["impact"] in ("serious", "critical")]
    return time.perf_counter() - started, len(found)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--width", type=int, default=1400)
    parser.add_argument("--theme", default="furo")
    args = parser.parse_args()
    # Absolute: the Sphinx extension runs it from the docs' folder.
    binary = Path(os.environ.get("CAPMAP_BIN", REPO / "build" / "tests" / "capmap")).resolve()
    os.environ["CAPMAP_BIN"] = str(binary)
    with tempfile.TemporaryDirectory() as folder:
        output, _ = build_site(Path(folder), args.theme).communicate(timeout=600)
        html = Path(folder) / args.theme / "_build" / "kornia.html"
        if not html.is_file():
            print(f"axe_cost: the Sphinx build failed:\n{output}", file=sys.stderr)
            return 1
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium")
            ways = {
                # The check the tests ran before: the toolbar, the embed and the first six tables.
                "toolbar + first six tables": (
                    FIRST_SIX,
                    ["#cm-controls", ".cm-embed", "table.capmap-cases[data-axe]"],
                ),
                "toolbar + a row of each kind": (KINDS_OF_ROWS, OURS.split(", ")),
                "the whole page's tables": ("(ours) => 0", OURS.split(", ")),
            }
            for label, (prepare, parts) in ways.items():
                context = browser.new_context(viewport={"width": args.width, "height": 900})
                page = context.new_page()
                page.on("pageerror", lambda e: print("page error:", e, file=sys.stderr))
                page.goto(html.as_uri())
                page.wait_for_selector("html[data-capmap-complete]", state="attached")
                page.evaluate(prepare, OURS)
                elements = page.evaluate("document.getElementsByTagName('*').length")
                seconds, found = timed_axe(page, parts)
                print(f"{label:30} {seconds:6.1f} s  {elements:6} elements  {found} findings")
                context.close()
            browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())

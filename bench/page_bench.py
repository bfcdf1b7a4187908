"""Page speed with 1,000 and 5,000 cases in headless Chromium.

Prints, per size: page size in KB; first render (navigation start to the first
paint with the header, counts and the first rows of the case tables); the time
every row exists (later rows are added in short tasks after that paint); and
keystroke-to-update in the search box (the input handler plus style and
layout, and up to the next paint).

    python bench/page_bench.py [--sizes 1000 5000] [--runs 5]

Uses $CAPMAP_BIN (default build/tests/capmap) and /usr/bin/chromium.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "browser"))

from snapshots import synthetic_snapshot, write_snapshot  # noqa: E402

# Registered before the page's own listener, so the frame it waits for comes
# after the tables are built.
PAINT_PROBE = """
window.__painted = new Promise(resolve => {
  document.addEventListener('DOMContentLoaded', () => {
    requestAnimationFrame(() => setTimeout(() => resolve(performance.now()), 0));
  });
});
"""

KEYSTROKE = """async (key) => {
  const box = document.getElementById('cm-q');
  const t0 = performance.now();
  box.value = key === 'Backspace' ? box.value.slice(0, -1) : box.value + key;
  box.dispatchEvent(new Event('input', {bubbles: true}));
  void document.body.offsetHeight;
  const t1 = performance.now();
  await new Promise(r => requestAnimationFrame(() => setTimeout(r, 0)));
  return [t1 - t0, performance.now() - t0];
}"""

TYPED = list("geometry_op_001") + ["Backspace"] * 6 + list("warp") + ["Backspace"] * 4


def render(binary: Path, count: int, workdir: Path) -> Path:
    snapshot = write_snapshot(synthetic_snapshot(count), workdir / f"snapshot_{count}.json")
    html = workdir / f"page_{count}.html"
    subprocess.run(
        [str(binary), "render", str(snapshot), "--html", str(html)], check=True, capture_output=True
    )
    return html


def first_render_ms(page: Page, html: Path) -> tuple[float, float]:
    """First paint with cases on screen, and the moment every row is built."""
    page.goto(html.as_uri())
    page.wait_for_selector("html[data-capmap-complete]")
    painted = float(page.evaluate("window.__painted"))
    complete = float(page.evaluate("performance.getEntriesByName('capmap-complete')[0].startTime"))
    return painted, complete


def figure(values: list[float]) -> str:
    return f"{statistics.median(values):.1f} ({max(values):.1f})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 5000])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    binary = Path(os.environ.get("CAPMAP_BIN", REPO / "build" / "tests" / "capmap"))
    if not os.access(binary, os.X_OK):
        print(f"page_bench: {binary} is not an executable capmap (set CAPMAP_BIN)", file=sys.stderr)
        return 2

    # Timings on a shared machine mean little without its load.
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs; {args.runs} page loads per size")
    print(
        f"{'cases':>6} {'KB':>6} {'first render ms':>16} {'all rows ms':>16}"
        f" {'key handler ms':>16} {'key to paint ms':>16}"
    )
    print(f"{'':>6} {'':>6}" + f" {'median (max)':>16}" * 4)
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium")
        for count in args.sizes:
            html = render(binary, count, Path(tmp))
            size_kb = html.stat().st_size / 1024
            firsts, completes = [], []
            for _ in range(args.runs):
                context = browser.new_context(viewport={"width": 1280, "height": 900})
                context.add_init_script(PAINT_PROBE)
                first, complete = first_render_ms(context.new_page(), html)
                firsts.append(first)
                completes.append(complete)
                context.close()
            context = browser.new_context(viewport={"width": 1280, "height": 900})
            page = context.new_page()
            page.goto(html.as_uri())
            page.wait_for_selector("html[data-capmap-complete]")
            handler, paint = [], []
            for key in TYPED:
                h, t = page.evaluate(KEYSTROKE, key)
                handler.append(h)
                paint.append(t)
            context.close()
            print(
                f"{count:>6} {size_kb:>6.0f}"
                + "".join(f" {figure(v):>16}" for v in (firsts, completes, handler, paint))
            )
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The documentation site builds clean (warnings are errors, nitpicky), its internal links land,
its CLI page holds the binary's own `--help`, and the README stays short without losing a figure."""

from __future__ import annotations

import html
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from capmap_testing import REPO, python_env

DOCS = REPO / "docs"

# Figures of the Benchmarks section the README held before the site existed: each must stand on
# the benchmarks page.
BENCHMARK_FIGURES = [
    "178.7 s, 178.3 s (27.1)",
    "96.8 s, 173.0 s (26.9)",
    "2.79 / 2.70 s",
    "0.970",
    "62.2 s, 62.1 s (6.5)",
    "32.4 s, 58.2 s (6.9)",
    "0.97 / 0.91 s",
    "0.937",
    "3,078,859 bytes",
    "4 min 5 s wall, 7.4 CPU-min",
    "241.7 s",
    "48 minutes",
    "1.042",
    "0.964",
    "32,796",
    "12,888",
]


class _Anchors(HTMLParser):
    """Every element id and every relative link of one HTML file."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.hrefs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value is None:
                continue
            if name in ("id", "name"):
                self.ids.add(value)
            elif name == "href" and tag in ("a", "link"):
                self.hrefs.append(value)


def _parse(page: Path) -> _Anchors:
    parser = _Anchors()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, capmap_bin: Path) -> Path:
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run(
        [sys.executable, "-m", "sphinx", "-N", "-W", "-n", "--keep-going", "-b", "html", str(DOCS), str(out)],
        capture_output=True,
        text=True,
        timeout=1200,
        env=python_env(CAPMAP_BIN=str(capmap_bin)),
        check=False,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    assert "WARNING" not in done.stderr and "ERROR" not in done.stderr, done.stderr[-4000:]
    return out


def test_every_internal_link_lands(site: Path) -> None:
    parsed: dict[Path, _Anchors] = {}

    def anchors(page: Path) -> _Anchors:
        if page not in parsed:
            parsed[page] = _parse(page)
        return parsed[page]

    broken: list[str] = []
    pages = sorted(site.rglob("*.html"))
    assert len(pages) > 10
    for page in pages:
        for href in anchors(page).hrefs:
            parts = urlsplit(href)
            if parts.scheme or parts.netloc or href.startswith(("mailto:", "javascript:")):
                continue
            target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
            if target.is_dir():
                target = target / "index.html"
            where = f"{page.relative_to(site)}: {href}"
            if not target.is_file():
                broken.append(f"{where}: no file {target}")
                continue
            fragment = unquote(parts.fragment)
            if fragment and target.suffix == ".html" and fragment not in anchors(target).ids:
                broken.append(f"{where}: no id {parts.fragment!r}")
    assert not broken, "\n".join(broken[:40])


def _text_of(page: Path) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", page.read_text(encoding="utf-8")))


@pytest.mark.parametrize("subcommand", ["", "run", "history"])
def test_the_cli_page_holds_the_binarys_own_help(site: Path, capmap_bin: Path, subcommand: str) -> None:
    command = [str(capmap_bin), *([subcommand] if subcommand else []), "--help"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, env=python_env(), check=True)
    page = _text_of(site / "cli.html")
    lines = [line.rstrip() for line in done.stdout.strip().splitlines() if line.strip()]
    assert lines
    missing = [line for line in lines if line not in page]
    assert not missing, missing[:5]


def test_the_readme_is_short_and_its_old_figures_stand_on_the_benchmarks_page(site: Path) -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 150
    # The two commands it opens with.
    assert "\nmake survey   # installs what a survey needs, surveys the quick tier of Kornia" in readme
    assert "\nmake test     # installs that and the test tools, runs every test" in readme
    benchmarks = _text_of(site / "benchmarks.html")
    missing = [figure for figure in BENCHMARK_FIGURES if figure not in benchmarks]
    assert not missing, missing


def test_the_design_file_is_gone_and_nothing_points_at_it() -> None:
    assert not (DOCS / "DESIGN.md").exists()
    done = subprocess.run(
        ["git", "grep", "--untracked", "-n", "DESIGN.md", "--", ".", ":!tests/python/test_docs_site.py"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.stdout == "", done.stdout

"""`capmap render NEW --baseline OLD`: the page and the Markdown summary say what changed since the
baseline, regressions first, as `capmap diff` finds it."""

from __future__ import annotations

import copy
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from page_session import PageSession
from snapshots import path_result, small_snapshot, write_snapshot


def _case(snapshot: dict[str, Any], name: str) -> dict[str, Any]:
    return next(c for c in snapshot["cases"] if c["name"] == name)


def _changed(baseline: dict[str, Any]) -> dict[str, Any]:
    """The baseline a day later: one regression, one fix and one changed cause."""
    new = copy.deepcopy(baseline)
    new["header"]["generated_at"] = "2026-01-16T12:00:00Z"
    frame = "kornia/color/gray.py:30 in rgb_to_grayscale"
    _case(new, "rgb_to_gray")["paths"]["onnx"] = path_result(
        "fail", "no ONNX lowering for aten::bucketize", "missing-onnx-lowering", frame
    )
    _case(new, "find_homography_dlt")["paths"]["onnx"] = path_result("ok")
    _case(new, "canny")["paths"]["export"] = path_result(
        "fail", "Python `if` on a tensor value", "control-flow", "kornia/filters/canny.py:80 in canny"
    )
    return new


def _render(capmap_bin: Path, *args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(capmap_bin), "render", *map(str, args)], capture_output=True, text=True, timeout=600, check=False
    )


@pytest.fixture
def rendered(capmap_bin: Path, tmp_path: Path) -> dict[str, Path]:
    baseline = write_snapshot(small_snapshot(), tmp_path / "baseline.json")
    new = write_snapshot(_changed(small_snapshot()), tmp_path / "new.json")
    out = {"html": tmp_path / "page.html", "md": tmp_path / "summary.md", "new": new, "baseline": baseline}
    done = _render(capmap_bin, new, "--baseline", baseline, "--html", out["html"], "--md", out["md"])
    assert done.returncode == 0, done.stderr
    return out


def test_the_page_lists_regressions_first_and_links_each_to_its_row(
    session: PageSession, rendered: dict[str, Path]
) -> None:
    page = session.open(rendered["html"])
    assert session.errors == []
    headings = page.locator("main h2").all_inner_texts()
    # Right after the cards, before the packages: a returning reader's first question.
    assert headings.index("Changes") == headings.index("At a glance") + 1
    section = page.locator("section[aria-labelledby=cm-changes]")
    assert "baseline.json (2026-01-15T12:00:00Z)" in section.locator("p").first.inner_text()
    assert "1 regressions, 1 fixes, 1 changed causes" in section.inner_text()
    lists = section.locator("details")
    assert lists.locator("summary").all_inner_texts() == [
        "Regressions (1)",
        "Fixes (1)",
        "Changed causes (1)",
    ]
    # Only the regressions are open.
    assert [lists.nth(i).evaluate("d => d.open") for i in range(3)] == [True, False, False]
    regression = lists.nth(0).locator("tbody tr")
    assert regression.locator("td").all_inner_texts()[:2] == ["rgb_to_gray", "onnx"]
    assert "no ONNX lowering for aten::bucketize" in regression.inner_text()
    # The case's link sets the search to it: the table shows that one case.
    regression.locator("a").click()
    page.wait_for_function("() => document.querySelector('#cm-q').value === 'rgb_to_gray'")
    shown = page.evaluate(
        """() => Array.from(document.querySelectorAll('#cm-tables tbody tr'))
        .filter(r => !r.hidden && !r.closest('section').hidden).length"""
    )
    assert shown == 1
    assert session.errors == []


def test_at_phone_width_the_changes_fit(session: PageSession, rendered: dict[str, Path]) -> None:
    session.page.set_viewport_size({"width": 390, "height": 844})
    page = session.open(rendered["html"])
    for i in range(3):
        page.locator("section[aria-labelledby=cm-changes] details").nth(i).evaluate("d => d.open = true")
    wider = page.evaluate(
        """() => Array.from(document.querySelectorAll('section[aria-labelledby=cm-changes] *'))
        .filter(e => !e.closest('.cm-scroll') && e.getBoundingClientRect().right > innerWidth + 1)
        .map(e => e.tagName)"""
    )
    assert wider == []
    assert page.evaluate("() => document.documentElement.scrollWidth <= innerWidth")


def test_the_summary_carries_the_changes_before_the_packages(rendered: dict[str, Path]) -> None:
    summary = rendered["md"].read_text()
    assert "### Changes since baseline.json (2026-01-15T12:00:00Z)" in summary
    changes = summary[summary.index("### Changes since") : summary.index("### By package")]
    assert changes.count("\n### ") == 0  # the comment's verdict is a lead line here, not a heading
    assert "**" in changes.splitlines()[2]
    regressions = changes[changes.index("Regressions") :]
    assert "rgb_to_gray" in regressions.split("</details>")[0]


def test_without_a_baseline_there_is_no_changes_section(capmap_bin: Path, rendered: dict[str, Path]) -> None:
    html = rendered["html"].with_name("plain.html")
    md = rendered["md"].with_name("plain.md")
    done = _render(capmap_bin, rendered["new"], "--html", html, "--md", md)
    assert done.returncode == 0, done.stderr
    assert 'id="cm-changes"' not in html.read_text()
    assert "Changes since" not in md.read_text()


def test_a_baseline_that_is_not_a_snapshot_is_refused_in_one_line(
    capmap_bin: Path, rendered: dict[str, Path]
) -> None:
    bad = rendered["baseline"].with_name("bad.json")
    bad.write_text(json.dumps({"hello": 1}))
    html = rendered["html"].with_name("refused.html")
    done = _render(capmap_bin, rendered["new"], "--baseline", bad, "--html", html)
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and "bad.json" in done.stderr
    assert not html.exists()


def test_a_timeout_of_a_slow_capture_is_listed_apart_from_the_regressions(
    capmap_bin: Path, session: PageSession, tmp_path: Path
) -> None:
    # The baseline captured it in 300 s; here it was killed at 859 s, under 10 × as long.
    baseline, new = small_snapshot(), small_snapshot()
    slow = next(
        c["name"] for c in baseline["cases"] if c["paths"].get("compile", {}).get("page_status") == "ok"
    )
    _case(baseline, slow)["paths"]["compile"]["seconds"] = 300.0
    timed_out = path_result("timeout", "still running after 859 s", "timeout")
    timed_out.update(seconds=859.0, limit_seconds=859.0)
    _case(new, slow)["paths"]["compile"] = timed_out
    new["header"]["generated_at"] = "2026-01-16T12:00:00Z"
    html = tmp_path / "slow.html"
    done = _render(
        capmap_bin,
        write_snapshot(new, tmp_path / "new.json"),
        "--baseline",
        write_snapshot(baseline, tmp_path / "baseline.json"),
        "--html",
        html,
    )
    assert done.returncode == 0, done.stderr
    page = session.open(html)
    section = page.locator("section[aria-labelledby=cm-changes]")
    assert "0 regressions, 1 timeouts of slow captures, 0 fixes" in section.inner_text()
    lists = section.locator("details")
    assert lists.locator("summary").all_inner_texts() == ["Timeouts of slow captures (1)"]
    assert lists.first.evaluate("d => d.open")
    assert lists.locator("tbody td").all_inner_texts()[:2] == [slow, "compile"]
    assert session.errors == []

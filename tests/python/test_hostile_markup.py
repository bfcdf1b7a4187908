"""Markup in every string field of a snapshot stays text in the Sphinx page (checked with docutils)
and in the Markdown summary (no injected link, image or HTML); no link takes a scheme other than
http(s). The HTML page is checked in Chromium (tests/browser/test_hostile_links.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from capmap_testing import run_capmap
from docutils import nodes
from docutils.core import publish_doctree

MARKUP = (
    '<img src=x onerror="p()"><script>p()</script>[x](javascript:p()) ![i](http://e/i.png) '
    "`code` *em* _u_ |sub| :role:`x` <http://e/> .. raw:: html\n\n   <b>raw</b>\n"
)
SENTINELS = ("<img src=x", "<script>p()", "<b>raw")


def is_safe(url: str) -> bool:
    lowered = url.strip().lower()
    if lowered.startswith(("http://", "https://")):
        return True
    return ":" not in re.split(r"[/?#]", lowered)[0]


def poisoned(value: Any) -> Any:
    if isinstance(value, str):
        return value + MARKUP
    if isinstance(value, list):
        return [poisoned(v) for v in value]
    return value


def hostile_snapshot() -> dict[str, Any]:
    def record(status: str, page_status: str) -> dict[str, Any]:
        result: dict[str, Any] = {"status": status, "page_status": page_status, "seconds": 0.1}
        if page_status != "ok":
            result.update(
                cause=poisoned("no lowering"),
                category="unclassified",
                detail=poisoned("detail"),
                message=poisoned("message"),
                error_type=poisoned("RuntimeError"),
                remedy=poisoned("try"),
                frames=["javascript:p()//lib/x.py:3 in f" + MARKUP],
            )
        return result

    cases = []
    for index, name in enumerate(["relu", "warp[<b>x</b>]"]):
        operator, _, variant = name.partition("[")
        cases.append(
            {
                "name": poisoned(name),
                "operator": poisoned(operator),
                "variant": poisoned(variant.rstrip("]")),
                "group": poisoned("pkg.section"),
                "package": poisoned("pkg"),
                "section": poisoned("section"),
                "note": poisoned("note"),
                "ref": poisoned("lib.pkg." + operator),
                "where": "javascript:p()//lib/x.py:1",
                "tags": [],
                "skip": None,
                "paths": {
                    "eager": record("ok", "ok"),
                    "onnx": record("export-fail", "fail") if index == 0 else record("ok", "ok"),
                    "export": record("mismatch", "mismatch"),
                },
            }
        )
    header = {
        "tool": "capmap 0.1.0",
        "library": {
            "name": poisoned("lib"),
            "version": poisoned("1.0"),
            "revision": poisoned("abc"),
            "source_url": "{path}",
            "docs_url": "javascript:p()//{ref}",
        },
        "versions": {"torch": poisoned("2.13.0")},
        "settings": {"opset": 18},
        "run_key": poisoned("k"),
        "device": poisoned("cpu"),
        "cpu": poisoned("cpu"),
        "cores": 2,
        "generated_at": "2026-01-01T00:00:00Z",
        "complete": True,
        "missing": 0,
        "paths": ["eager", "onnx", "export"],
        "excludes": [{"name": poisoned("X"), "reason": poisoned("why"), "where": poisoned("w")}],
    }
    return {"schema_version": 1, "header": header, "cases": sorted(cases, key=lambda c: c["name"])}


def render(capmap_bin: Path, tmp_path: Path) -> tuple[str, str]:
    snapshot = tmp_path / "hostile.json"
    snapshot.write_text(json.dumps(hostile_snapshot()))
    done = run_capmap(
        capmap_bin, "render", snapshot, "--rst", tmp_path / "page.rst", "--md", tmp_path / "s.md"
    )
    assert done.returncode == 0, done.stderr
    return (tmp_path / "page.rst").read_text(), (tmp_path / "s.md").read_text()


def test_the_sphinx_page_keeps_markup_as_text(capmap_bin: Path, tmp_path: Path) -> None:
    rst, _ = render(capmap_bin, tmp_path)
    tree = publish_doctree(
        rst, settings_overrides={"report_level": 5, "halt_level": 5, "file_insertion_enabled": False}
    )
    # The page's own raw blocks (the explorer, its data as escaped JSON) carry none of it live.
    for raw in tree.findall(nodes.raw):
        assert not any(s in raw.astext() for s in SENTINELS), raw.astext()[:500]
    assert list(tree.findall(nodes.image)) == []
    assert list(tree.findall(nodes.substitution_reference)) == []
    urls = [n["refuri"] for n in tree.findall(nodes.reference) if n.get("refuri")]
    assert [u for u in urls if not is_safe(u)] == []
    assert "<img src=x" in tree.astext()


def outside_code_spans(markdown: str) -> str:
    return re.sub(r"(`+)(?:(?!\1).)*?\1", "", markdown, flags=re.S)


def test_the_markdown_summary_keeps_markup_as_text(capmap_bin: Path, tmp_path: Path) -> None:
    _, markdown = render(capmap_bin, tmp_path)
    text = outside_code_spans(markdown)
    # The summary's own HTML is <details> and <summary>; nothing from the snapshot is a tag.
    assert [
        t for t in re.findall(r"(?<!\\)<(/?[A-Za-z!?]+)", text) if t.strip("/") not in ("details", "summary")
    ] == []
    assert not any(s in text for s in SENTINELS)
    assert re.findall(r"(?<!\\)\]\(", text) == []
    assert re.findall(r"<https?:", text) == []

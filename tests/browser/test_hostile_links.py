"""A page made from a hostile snapshot: markup in every string field stays text, and no link on the
page (rendered or built by its script) carries a scheme other than http(s)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

from page_session import PageSession
from snapshots import hostile_snapshot

MARKUP = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>[x](javascript:alert(1))'
SCRIPT_URL = "javascript:window.__pwned=5//"

# Every attribute that can hold a URL, on every element, with its raw value.
LINKS = """() => Array.from(document.querySelectorAll('*')).flatMap(el =>
  ['href', 'src', 'action', 'formaction', 'xlink:href', 'srcdoc', 'data']
    .filter(a => el.hasAttribute(a)).map(a => [el.tagName, a, el.getAttribute(a)]))"""
LIVE = "iframe, object, embed, img, svg, math, form, meta[http-equiv], base"


def is_safe(url: str) -> bool:
    lowered = url.strip().lower()
    if lowered.startswith(("http://", "https://")):
        return True
    return ":" not in lowered.split("/")[0].split("?")[0].split("#")[0]


def hostile_everywhere() -> dict[str, Any]:
    """The hostile snapshot with markup in every string field and script URLs in the templates."""
    snapshot = copy.deepcopy(hostile_snapshot())

    def poison(value: Any) -> Any:
        if isinstance(value, str):
            return value + MARKUP
        if isinstance(value, list):
            return [poison(v) for v in value]
        if isinstance(value, dict):
            return {
                k: poison(v) if k not in {"status", "page_status", "category"} else v
                for k, v in value.items()
            }
        return value

    for entry in snapshot["cases"]:
        for key in ("operator", "variant", "group", "package", "section", "note", "ref"):
            entry[key] = poison(entry[key])
        entry["where"] = "javascript:window.__pwned=7//x.py:3"
        for record in entry["paths"].values():
            record.update(poison({k: v for k, v in record.items() if isinstance(v, str | list)}))
            record["frames"] = ["javascript:window.__pwned=6//kornia/x.py:3 in f"]
            if record["page_status"] != "ok":
                record["remedy"] = "try " + MARKUP
    library = snapshot["header"]["library"]
    library["source_url"] = "{path}"
    library["docs_url"] = SCRIPT_URL + "{ref}"
    library["name"] = "lib" + MARKUP
    return snapshot


def test_markup_and_script_urls_in_every_field_stay_inert(
    session: PageSession, render_page: Callable[..., Path]
) -> None:
    html = render_page(hostile_everywhere(), "hostile-links")
    page = session.open(html)
    # Open every failure's details: their links are built when first opened.
    for button in page.locator("button.cm-why").all():
        button.click()
    assert page.evaluate("window.__pwned") is None
    assert session.dialogs == []
    assert page.locator(LIVE).count() == 0
    unsafe = [link for link in page.evaluate(LINKS) if not is_safe(link[2])]
    assert unsafe == []
    # The markup is there, as text.
    assert MARKUP in page.locator("#cm-tables").inner_text()
    assert page.locator("a[href^='javascript' i]").count() == 0


def test_http_templates_still_link(session: PageSession, render_page: Callable[..., Path]) -> None:
    snapshot = copy.deepcopy(hostile_snapshot())
    library = snapshot["header"]["library"]
    library["source_url"] = "https://example.org/{revision}/{path}#L{line}"
    library["docs_url"] = "https://docs.example.org/?q={ref}"
    page = session.open(render_page(snapshot, "http-links"))
    hrefs = [link[2] for link in page.evaluate(LINKS) if link[0] == "A"]
    assert any(h.startswith("https://docs.example.org/?q=") for h in hrefs), hrefs
    assert all(is_safe(h) for h in hrefs)

"""Finding operators by their public names, causes of failure apart from graph
breaks and cases not run, the constant status, and what to do about a failure."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from page_session import PageSession
from playwright.sync_api import Page
from snapshots import PAGE_PATHS, case, header, path_result, public_names_snapshot

SHOWN = """() => Array.from(document.querySelectorAll('#cm-tables tbody tr'))
  .filter(r => !r.hidden && !r.closest('section').hidden)
  .map(r => r.querySelector('td.op code').textContent)"""


def shown(page: Page) -> list[str]:
    return sorted(page.evaluate(SHOWN))


@pytest.fixture
def names_page(render_page: Callable[..., Path]) -> Path:
    return render_page(public_names_snapshot(), "names")


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("kornia.geometry.transform.warp_perspective", ["warp_perspective"]),
        ("transform.warp_perspective", ["warp_perspective"]),
        ("kornia.color.rgb_to_grayscale", ["rgb_to_grayscale"]),
        ("kornia.augmentation.RandomGaussianNoise", ["RandomGaussianNoise"]),
        ("kornia.geometry.Keypoints.from_tensor", ["Keypoints.from_tensor"]),
        ("kornia.geometry.Keypoints", ["Keypoints", "Keypoints.from_tensor"]),
        ("kornia.geometry.liegroup.So3", ["So3.exp"]),
        # Where it is defined still finds it.
        ("kornia.geometry.transform.imgwarp.warp_perspective", ["warp_perspective"]),
    ],
)
def test_public_names_find_the_operator(
    session: PageSession, names_page: Path, query: str, expected: list[str]
) -> None:
    page = session.open(names_page)
    page.locator("#cm-q").fill(query)
    assert shown(page) == expected
    # The row shows the public name, with the words found marked.
    if "imgwarp" not in query:
        # Marks follow a pause in typing.
        page.wait_for_selector("#cm-tables tbody tr:not([hidden]) .qn mark")
        marks = page.locator("#cm-tables tbody tr:not([hidden]) .qn mark").all_text_contents()
        assert marks and all(m.lower() in query.lower() for m in marks)


def test_another_library_is_searched_by_the_names_it_exports(
    session: PageSession, render_page: Callable[..., Path]
) -> None:
    """As monai's page: classes defined in croppad/array.py and spatial/array.py are exported
    by monai.transforms alone; the worker recorded that in each case's public_ref."""
    ok = {p: path_result("ok") for p in PAGE_PATHS}
    cases = []
    for name, folder in (("SpatialPad", "croppad"), ("Flip", "spatial")):
        entry = case(name, "transforms", ok, ref=f"namedlib.transforms.{folder}.array.{name}")
        entry["public_ref"] = f"namedlib.transforms:{name}"
        cases.append(entry)
    page = session.open(render_page({"schema_version": 1, "header": header("namedlib"), "cases": cases}))
    assert session.errors == []
    page.locator("#cm-q").fill("namedlib.transforms.SpatialPad")
    assert shown(page) == ["SpatialPad"]
    row = page.locator("#cm-tables tbody tr:not([hidden])")
    assert row.locator(".qn").text_content() == "namedlib.transforms.SpatialPad"
    page.locator("#cm-q").fill("no_such_operator_anywhere")
    assert shown(page) == []
    hint = page.locator(".cm-empty").inner_text()
    example = next(n for n in ("namedlib.transforms.Flip", "namedlib.transforms.SpatialPad") if n in hint)
    assert f"Names are searched as written in the library ({example})" in hint, hint
    assert example in (page.locator("#cm-q").get_attribute("placeholder") or "")


def test_rows_show_public_names_grouped_by_public_package(session: PageSession, names_page: Path) -> None:
    page = session.open(names_page)
    assert session.errors == []
    row = page.locator("#cm-tables tbody tr", has=page.locator("td.op code", has_text="warp_perspective"))
    assert row.locator(".qn").text_content() == "kornia.geometry.transform.warp_perspective"
    titles = [t.rsplit(" (", 1)[0] for t in page.locator("#cm-tables h3").all_text_contents()]
    assert titles == [
        "augmentation",
        "color",
        "feature.disk",
        "geometry",
        "geometry.liegroup",
        "geometry.transform",
    ]
    geometry = page.locator("#cm-tables section", has=page.locator("h3", has_text="geometry (")).first
    ops = geometry.locator("td.op code").all_text_contents()
    assert ops == ["find_homography_dlt", "Keypoints", "Keypoints.from_tensor"]


def test_nothing_found_says_so_with_a_hint(session: PageSession, names_page: Path) -> None:
    page = session.open(names_page)
    page.locator("#cm-q").fill("kornia.geometry.warp_perspectiv3")
    assert shown(page) == []
    empty = page.locator(".cm-empty")
    assert empty.is_visible()
    assert "No case matches" in empty.inner_text() and "warp_perspectiv3" in empty.inner_text()
    empty.locator("button").click()
    assert len(shown(page)) == 8


def test_causes_of_failure_per_path_apart_from_breaks_and_not_run(
    session: PageSession, names_page: Path
) -> None:
    page = session.open(names_page)
    onnx = page.locator(".cm-path-cause", has=page.locator("h3", has_text="ONNX"))
    # Missing lowerings are one group, with its operators and their counts, largest first.
    first = onnx.locator(":scope > ul > li").first
    assert first.locator(":scope > .num").inner_text() == "3"
    assert first.locator(":scope > button").inner_text() == "Missing ONNX lowering"
    members = [
        (li.locator(".num").inner_text(), li.locator("button").inner_text())
        for li in first.locator("ul > li").all()
    ]
    assert members == [
        ("2", "torch.linalg.svd (aten._linalg_svd)"),
        ("1", "torch.linalg.solve (aten._linalg_solve_ex)"),
    ]
    compile_ = page.locator(".cm-path-cause", has=page.locator("h3", has_text="torch.compile"))
    assert "No failures" in compile_.inner_text()
    failures = page.locator(".cm-path-causes").inner_text()
    assert "Reads a tensor value back" not in failures and "pretrained" not in failures
    assert "Reads a tensor value back into Python" in (page.locator(".cm-reasons").first.text_content() or "")
    assert "needs pretrained weights" in (page.locator(".cm-reasons").nth(1).text_content() or "")
    # Backticks in a cause become code.
    assert page.locator(".cm-path-causes code", has_text=".item()").count() >= 1
    # A group filters its category on its path.
    onnx.locator("button[data-cat]").click()
    assert shown(page) == sorted(["find_homography_dlt", "So3.exp", "warp_perspective"])
    assert page.locator('button[data-view="fail-onnx"]').get_attribute("aria-pressed") == "true"


def test_category_counts_follow_the_path(session: PageSession, names_page: Path) -> None:
    page = session.open(names_page)

    def count(category: str) -> str:
        return page.locator(f'#cm-cat option[value="{category}"]').inner_text()

    assert count("data-dependent") == "data-dependent (1)"
    page.locator('button[data-view="fail-compile"]').click()
    # Keypoints.from_tensor only breaks the graph on compile: not a failure there.
    assert count("data-dependent") == "data-dependent (0)"
    page.locator('button[data-view="fail-onnx"]').click()
    assert count("missing-onnx-lowering") == "missing-onnx-lowering (3)"
    page.locator('button[data-view="breaks"]').click()
    assert count("data-dependent") == "data-dependent (1)"
    row = page.locator(
        "#cm-tables tbody tr", has=page.locator("td.op code", has_text="Keypoints.from_tensor")
    )
    note = row.locator(".cause.k-break")
    assert note.count() == 1 and note.inner_text().startswith("compile (graph break):")
    assert page.evaluate("(e) => getComputedStyle(e).fontStyle", note.element_handle()) == "italic"


def test_constant_is_its_own_status(session: PageSession, names_page: Path) -> None:
    page = session.open(names_page)
    row = page.locator("#cm-tables tbody tr", has=page.locator("td.op code", has_text="rgb_to_grayscale"))
    assert row.locator(".badge").first.inner_text() == "constant"
    assert "st-constant" in (row.locator(".badge").first.get_attribute("class") or "")
    legend = page.locator(".cm-legend:not(.cm-paths)").inner_text()
    # The legend also says what each path measures.
    assert "torch.onnx.export(dynamo=True)" in page.locator(".cm-paths").inner_text()
    assert "no input reaches the graph" in legend
    # The legend lists only statuses that occur.
    assert "timeout" not in legend and "crashed" not in legend
    onnx_card = page.locator(".cm-card").first.inner_text()
    assert "1 constant" in onnx_card
    # Probed 7 on ONNX (DISK not run): 1 ok, 1 constant, 5 failed.
    assert "1 / 7" in onnx_card and "5 failed" in onnx_card
    # Neither a failure nor "all ok".
    page.locator('button[data-view="fail-onnx"]').click()
    assert "rgb_to_grayscale" not in shown(page)
    page.locator('button[data-view="allok"]').click()
    assert shown(page) == ["Keypoints"]


def test_a_failure_expands_to_what_to_do(session: PageSession, names_page: Path) -> None:
    page = session.open(names_page)
    row = page.locator("#cm-tables tbody tr", has=page.locator("td.op code", has_text="RandomGaussianNoise"))
    button = row.locator("button.cm-why")
    assert button.get_attribute("aria-expanded") == "false"
    button.click()
    assert button.get_attribute("aria-expanded") == "true"
    panel = row.locator(".cm-why-panel")
    text = panel.inner_text()
    assert "largest difference from eager 0.00105" in text and "7 values beyond" in text
    assert "capmap repro 'RandomGaussianNoise[mean=0.1]' --path onnx" in text
    button.click()
    assert not panel.is_visible()


def test_run_details_fold_and_totals_are_explained(session: PageSession, names_page: Path) -> None:
    page = session.open(names_page)
    assert not page.locator(".cm-facts").is_visible()
    page.locator(".cm-run summary").click()
    assert page.locator(".cm-facts").is_visible()
    totals = page.locator(".cm-totals").inner_text()
    assert (
        "8 cases" in totals and "7 cases were probed" in totals and "7 cases probed on every path" in totals
    )
    cards = page.locator(".cm-card").all_inner_texts()
    all_paths = next(c for c in cards if c.startswith("All three"))
    assert "/ 7" in all_paths

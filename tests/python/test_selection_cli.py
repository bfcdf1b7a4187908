"""A run of part of a registry says so, through the real binary on an 8-case registry: the store
records the selection, merge carries it into the header, the pages show it, and `capmap diff`
tells a removed case from one the other side never selected, also against Kornia's own
export_support.json layout."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from capmap_testing import REPO, query, run_capmap

REGISTRY = Path(__file__).resolve().parent / "registries" / "selection_cases.py"
SCHEMA = json.loads((REPO / "docs" / "snapshot.schema.json").read_text())
ALL = [f"x[{i}]" for i in range(1, 9)]
QUICK = ["x[1]", "x[2]", "x[7]"]


def survey(capmap_bin: Path, folder: Path, *options: str, paths: str = "eager,export") -> Path:
    """Runs the registry into folder/results.db; returns the snapshot the run merged."""
    done = run_capmap(capmap_bin, "run", REGISTRY, "--paths", paths, "--jobs", "1",
                      "--store", folder / "results.db", *options, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return folder / "snapshot.json"


def load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text())


@pytest.fixture(scope="module")
def runs(capmap_bin: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The whole registry and one case of it, each measured once for every test here."""
    root = tmp_path_factory.mktemp("selection")
    return {
        "all": survey(capmap_bin, root / "all"),
        "one": survey(capmap_bin, root / "one", "--only", "x[1]"),
    }


def diff_json(capmap_bin: Path, old: Path, new: Path) -> dict[str, Any]:
    done = run_capmap(capmap_bin, "diff", old, new, "--format", "json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_a_run_of_one_case_says_so_in_the_store_snapshot_and_pages(runs: dict[str, Path]) -> None:
    snapshot = load(runs["one"])
    jsonschema.validate(snapshot, SCHEMA)
    header = snapshot["header"]
    assert header["complete"] is True
    assert header["selection"] == {
        "registry_cases": 8,
        "cases": 1,
        "only": ["x[1]"],
        "tags": [],
        "shard": None,
    }
    assert [c["name"] for c in snapshot["cases"]] == ["x[1]"]
    stored = query(
        runs["one"].parent / "results.db", "SELECT only, tags, shard, registry_cases, cases FROM selections"
    )
    assert stored == [('["x[1]"]', "[]", "1/1", 8, 1)]
    page = (runs["one"].parent / "page.html").read_text()
    assert '<dt>Selection</dt><dd class="cm-warn">1 of 8 registry cases (only x[1])</dd>' in page

    whole = load(runs["all"])["header"]["selection"]
    assert whole == {"registry_cases": 8, "cases": 8, "only": [], "tags": [], "shard": None}


def test_the_markdown_and_rst_facts_name_the_selection(
    capmap_bin: Path, runs: dict[str, Path], tmp_path: Path
) -> None:
    md, rst = tmp_path / "summary.md", tmp_path / "page.rst"
    done = run_capmap(capmap_bin, "render", runs["one"], "--md", md, "--rst", rst)
    assert done.returncode == 0, done.stderr
    assert "Selection 1 of 8 registry cases (only x\\[1\\])" in md.read_text()
    assert ":Selection: \\1 of 8 registry cases \\(only x\\[1\\]\\)" in rst.read_text()


def test_shard_stores_merge_into_the_selection_they_cover_together(capmap_bin: Path, tmp_path: Path) -> None:
    shards = [survey(capmap_bin, tmp_path / f"s{i}", "--tag", "quick", "--shard", f"{i}/2",
                     "--no-merge", paths="eager").parent / "results.db" for i in (1, 2)]  # fmt: skip
    both = tmp_path / "both.json"
    done = run_capmap(capmap_bin, "merge", "--store", shards[0], "--store", shards[1], "--out", both)
    assert done.returncode == 0, done.stderr
    header = load(both)["header"]
    assert header["complete"] is True
    assert [c["name"] for c in load(both)["cases"]] == QUICK
    assert header["selection"] == {
        "registry_cases": 8,
        "cases": 3,
        "only": [],
        "tags": ["quick"],
        "shard": None,
    }

    alone = tmp_path / "alone.json"
    done = run_capmap(capmap_bin, "merge", "--store", shards[0], "--out", alone, "--force")
    assert done.returncode == 0, done.stderr
    snapshot = load(alone)
    jsonschema.validate(snapshot, SCHEMA)
    assert snapshot["header"]["complete"] is False
    assert snapshot["header"]["selection"]["shard"] == "1/2"


def test_diff_does_not_call_unselected_cases_removed(capmap_bin: Path, runs: dict[str, Path]) -> None:
    report = diff_json(capmap_bin, runs["all"], runs["one"])
    assert report["counts"]["removed_cases"] == 0
    assert report["outside_new_selection"] == ALL[1:]
    assert report["counts"]["regressions"] == 0
    assert "the two sides cover different selections" in report["selection_note"]
    assert {
        "key": "selection",
        "old": "all 8 registry cases",
        "new": "1 of 8 registry cases (only x[1])",
    } in report["header"]
    back = diff_json(capmap_bin, runs["one"], runs["all"])
    assert back["counts"]["new_cases"] == 0
    assert back["outside_old_selection"] == ALL[1:]

    text = run_capmap(capmap_bin, "diff", runs["all"], runs["one"]).stdout
    assert "Note: the two sides cover different selections" in text
    assert "Removed cases" not in text


def test_an_older_snapshot_without_a_selection_still_loads(
    capmap_bin: Path, runs: dict[str, Path], tmp_path: Path
) -> None:
    older = load(runs["all"])
    del older["header"]["selection"]
    jsonschema.validate(older, SCHEMA)
    old_file = tmp_path / "older.json"
    old_file.write_text(json.dumps(older))
    report = diff_json(capmap_bin, old_file, runs["all"])
    assert report["counts"]["removed_cases"] == 0 and report["selection_note"] is None
    assert report["header"] == [{"key": "selection", "old": "(none)", "new": "all 8 registry cases"}]
    html = tmp_path / "older.html"
    done = run_capmap(capmap_bin, "render", old_file, "--html", html)
    assert done.returncode == 0, done.stderr
    assert "<dt>Selection</dt>" not in html.read_text()


def test_diff_reads_kornias_export_support_layout_on_either_side(
    capmap_bin: Path, runs: dict[str, Path], tmp_path: Path
) -> None:
    kornia = tmp_path / "export_support.json"
    store = runs["all"].parent / "results.db"
    done = run_capmap(
        capmap_bin, "merge", "--store", store, "--out", tmp_path / "s.json", "--kornia-json", kornia
    )
    assert done.returncode == 0, done.stderr
    published = json.loads(kornia.read_text())
    assert {c["export"] for c in published["cases"]} == {"ok"}

    # The published file as capmap wrote it agrees with the run it came from.
    same = diff_json(capmap_bin, kornia, runs["all"])
    assert [same["counts"][k] for k in ("regressions", "fixes", "new_cases", "removed_cases")] == [0, 0, 0, 0]

    # A published page that had x[1] failing to export, lacked x[8] and listed a case capmap has not.
    published["cases"][0]["export"] = "fail"
    published["cases"][0]["export_detail"] = "a Python branch (if / while) tests tensor values at run time"
    published["cases"] = [c for c in published["cases"] if c["name"] != "x[8]"]
    published["cases"].append({**published["cases"][1], "name": "retired_op"})
    kornia.write_text(json.dumps(published))
    report = diff_json(capmap_bin, kornia, runs["all"])
    assert [(f["case"], f["path"], f["old_status"], f["new_status"]) for f in report["fixes"]] == [
        ("x[1]", "export", "fail", "ok")
    ]
    assert report["new_cases"] == ["x[8]"]
    assert report["removed_cases"] == ["retired_op"]
    # Against a run of one case, the rest of the published page is outside that run.
    partial = diff_json(capmap_bin, runs["one"], kornia)
    assert partial["counts"]["removed_cases"] == 0 and partial["outside_old_selection"] == [
        "retired_op",
        *ALL[1:7],
    ]
    assert [r["case"] for r in partial["regressions"]] == ["x[1]"]

    published["cases"][2]["onnx"] = "broken"
    kornia.write_text(json.dumps(published))
    bad = run_capmap(capmap_bin, "diff", kornia, runs["all"])
    assert bad.returncode == 2
    assert bad.stderr == (
        f"capmap: {kornia}: case 'x[3]': onnx status \"broken\" is not one of ok, ok-breaks, "
        "ok-unverified, mismatch, fail, crashed, timeout, oom, n/a\n"
    )
    assert bad.stdout == ""

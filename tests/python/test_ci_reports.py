"""Reports where CI looks: `capmap report --junit` (read back by junitparser, an independent JUnit
reader) from a real survey, and `capmap diff --format md` as a pull request comment."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from capmap_testing import REPO, run_capmap
from junitparser import Failure, JUnitXml, Skipped

REGISTRY = REPO / "tests" / "python" / "registries" / "report_cases.py"
FAILING = {"fail", "mismatch", "crashed", "timeout", "oom"}


@pytest.fixture(scope="module")
def surveyed(capmap_bin: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real run of the report registry (eager and export); returns its snapshot."""
    folder = tmp_path_factory.mktemp("surveyed")
    done = run_capmap(capmap_bin, "run", REGISTRY, "--paths", "eager,export", "--jobs", "2",
                      "--store", folder / "results.db", timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return folder / "snapshot.json"


def xml_text(text: str) -> str:
    """What XML 1.0 can hold of a text: other control characters read back as U+FFFD."""
    return re.sub(r"[\x00-\x08\x0b\x0c\x0e-\x1f]", "\ufffd", text)


def expected_cells(snapshot: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    return {(c["name"], p): r for c in snapshot["cases"] for p, r in c["paths"].items()}


def test_junit_report_reads_back_with_the_right_counts(
    capmap_bin: Path, surveyed: Path, tmp_path: Path
) -> None:
    snapshot = json.loads(surveyed.read_text())
    junit = tmp_path / "junit.xml"
    done = run_capmap(capmap_bin, "report", surveyed, "--junit", junit)
    assert done.returncode == 0, done.stderr

    cells = expected_cells(snapshot)
    failing = {k for k, r in cells.items() if r["page_status"] in FAILING}
    not_applicable = {k for k, r in cells.items() if r["page_status"] == "n/a"}
    # The registry is built so that every kind of cell is present.
    assert failing and not_applicable and len(failing) + len(not_applicable) < len(cells)

    xml = JUnitXml.fromfile(str(junit))
    assert (xml.tests, xml.failures, xml.errors, xml.skipped) == (
        len(cells),
        len(failing),
        0,
        len(not_applicable),
    )
    seen: dict[tuple[str, str], Any] = {}
    for suite in xml:
        path = suite.name.split(".")[-1]
        assert suite.tests == sum(1 for (_, p) in cells if p == path)
        for test in suite:
            seen[(test.name, path)] = test
    assert set(seen) == set(cells)
    for key, test in seen.items():
        record = cells[key]
        results = test.result
        if key in failing:
            assert len(results) == 1 and isinstance(results[0], Failure), key
            assert results[0].message == xml_text(record["cause"])
            assert results[0].type == record["category"]
            assert record["page_status"] in results[0].text
        elif key in not_applicable:
            assert len(results) == 1 and isinstance(results[0], Skipped), key
        else:
            assert results == [], key
        assert test.classname.startswith(key[1] + ".math.")
    # A control character in a message cannot be written in XML 1.0: it is replaced, the rest kept.
    eager_failure = seen[("wrong_channels", "eager")].result[0]
    assert "expected 3 channels, got 4 <\ufffd & 'quoted'>" in eager_failure.text


def test_merge_and_diff_write_the_same_junit_as_report(
    capmap_bin: Path, surveyed: Path, tmp_path: Path
) -> None:
    report, merged, diffed = tmp_path / "report.xml", tmp_path / "merge.xml", tmp_path / "diff.xml"
    assert run_capmap(capmap_bin, "report", surveyed, "--junit", report).returncode == 0
    done = run_capmap(capmap_bin, "merge", "--store", surveyed.parent / "results.db",
                      "--out", tmp_path / "again.json", "--junit", merged)  # fmt: skip
    assert done.returncode == 0, done.stderr
    done = run_capmap(capmap_bin, "diff", surveyed, surveyed, "--junit", diffed)
    assert done.returncode == 0, done.stderr
    assert report.read_bytes() == merged.read_bytes() == diffed.read_bytes()


def test_report_of_a_malformed_snapshot_is_one_line_exit_2(capmap_bin: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema_version": 1, "header": {}}')
    junit = tmp_path / "junit.xml"
    done = run_capmap(capmap_bin, "report", bad, "--junit", junit)
    assert done.returncode == 2
    assert done.stderr == f"capmap: {bad}: not a capmap snapshot: no 'cases' list\n"
    assert not junit.exists()


SOURCE_URL = "https://example.org/lib/blob/{revision}/{path}#L{line}"


def path_record(status: str, cause: str = "", frames: list[str] | None = None) -> dict[str, Any]:
    record: dict[str, Any] = {"status": status, "page_status": status}
    if cause:
        record.update(cause=cause, category="unclassified", detail=cause)
    if frames:
        record["frames"] = frames
    return record


def snapshot(revision: str, cases: dict[str, dict[str, Any]]) -> dict[str, Any]:
    header = {
        "library": {"name": "lib", "revision": revision, "source_url": SOURCE_URL},
        "versions": {"torch": "2.13.0"},
        "generated_at": "2026-01-01T00:00:00Z",
        "paths": ["onnx"],
    }
    entries = [{"name": name, "paths": {"onnx": record}} for name, record in sorted(cases.items())]
    return {"schema_version": 1, "header": header, "cases": entries}


def write(path: Path, data: dict[str, Any]) -> Path:
    path.write_text(json.dumps(data))
    return path


def test_diff_markdown_is_a_pull_request_comment(capmap_bin: Path, tmp_path: Path) -> None:
    frame = ["lib/filters/blur.py:40 in blur", "lib/core/check.py:12 in check_shape"]
    old_cases = {f"fixed_{i:02d}": path_record("fail", "No lowering", frame) for i in range(30)}
    old_cases["regressed"] = path_record("ok")
    new_cases = {f"fixed_{i:02d}": path_record("ok") for i in range(30)}
    new_cases["regressed"] = path_record("fail", "Data-dependent branch", frame)
    old = write(tmp_path / "old.json", snapshot("v1", old_cases))
    new = write(tmp_path / "new.json", snapshot("v2", new_cases))

    done = run_capmap(capmap_bin, "diff", old, new, "--format", "md")
    assert done.returncode == 0, done.stderr
    md = done.stdout
    lines = md.splitlines()
    assert lines[0] == "### ❌ capmap: 1 regression, 30 fixes"
    # The short list of regressions stays open, with a link to the line that failed ...
    regressions = md.index("**Regressions (1)**")
    link = "[`lib/core/check.py:12`](https://example.org/lib/blob/v2/lib/core/check.py#L12)"
    assert f"| `regressed` | onnx | ok → fail (Data-dependent branch) | {link} |" in md
    assert "<details>" not in md[:regressions]
    # ... the long list of fixes folds away; a fix links to where the old failure was.
    assert "<details><summary><b>Fixes (30)</b></summary>" in md
    assert "https://example.org/lib/blob/v1/lib/core/check.py#L12" in md
    assert md.count("| `fixed_") == 30

    same = run_capmap(capmap_bin, "diff", new, new, "--format", "md")
    assert same.stdout.splitlines()[0] == "### ✅ capmap: no changes"
    fixes_only = run_capmap(capmap_bin, "diff", old, write(tmp_path / "fixed.json", snapshot("v2", {
        **new_cases, "regressed": path_record("ok")})), "--format", "md")  # fmt: skip
    assert fixes_only.stdout.splitlines()[0] == "### ✅ capmap: no regressions; 30 fixes"

"""Malformed and hostile inputs: every reader either reads them or refuses them with one line that
names the file and exit 2. Exit 3 (an internal error) or a signal is a bug in capmap.

Besides the two regressions below, every seed and every past finding of the fuzz targets
(tests/fuzz/corpus/TARGET, tests/fuzz/regressions/TARGET) goes through the real commands that
read it; the C++ replay drivers (ctest fuzz_replay_*) run the same files through the targets.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from capmap_testing import REPO, run_capmap

FUZZ = REPO / "tests" / "fuzz"


def fuzz_inputs(target: str) -> list[Path]:
    found = [
        p
        for folder in (FUZZ / "corpus" / target, FUZZ / "regressions" / target)
        if folder.is_dir()
        for p in sorted(folder.iterdir())
        if p.is_file()
    ]
    return found


def assert_read_or_refused(result, file: Path) -> None:  # noqa: ANN001 - a CompletedProcess
    """Exit 0, 1 or 2; a refusal is one line on stderr naming the file; never exit 3 or a signal."""
    assert result.returncode >= 0, f"killed by signal {-result.returncode}: {result.stderr[-2000:]}"
    assert result.returncode != 3, f"internal error on {file}: {result.stderr}"
    assert result.returncode in (0, 1, 2), (result.returncode, result.stderr)
    if result.returncode == 2:
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1, result.stderr
        assert lines[0].startswith("capmap: "), lines
        assert file.name in lines[0], lines


def snapshot_with(**changes: object) -> dict:
    record = {
        "status": "export-fail",
        "page_status": "fail",
        "cause": "no lowering",
        "category": "unclassified",
    }
    snapshot = {
        "schema_version": 1,
        "header": {"tool": "capmap 0.1.0", "library": {"name": "lib"}, "paths": ["eager", "onnx"]},
        "cases": [{"name": "relu", "group": "act", "paths": {"onnx": record}}],
    }
    for key, value in changes.items():
        if key in record:
            record[key] = value
        else:
            snapshot["cases"][0][key] = value
    return snapshot


def reader_commands(file: Path, out: Path) -> list[list[str | Path]]:
    return [
        ["diff", file, file],
        ["render", file, "--html", out / "page.html", "--rst", out / "page.rst", "--md", out / "summary.md"],
        ["causes", file],
        ["report", file, "--junit", out / "junit.xml"],
    ]


def test_a_number_beyond_the_range_of_a_double_is_bad_input(capmap_bin: Path, tmp_path: Path) -> None:
    snapshot = tmp_path / "huge.json"
    snapshot.write_text(json.dumps(snapshot_with()).replace('"schema_version": 1', '"schema_version": 1e309'))
    for command in reader_commands(snapshot, tmp_path):
        result = run_capmap(capmap_bin, *command)
        assert result.returncode == 2, (command, result.stderr)
        assert_read_or_refused(result, snapshot)
        assert "number overflow parsing '1e309'" in result.stderr
    kornia = tmp_path / "export_support.json"
    kornia.write_text('{"kornia": "0.8", "opset": 1e309, "cases": []}')
    result = run_capmap(capmap_bin, "diff", kornia, kornia)
    assert result.returncode == 2, result.stderr
    assert_read_or_refused(result, kornia)


@pytest.mark.parametrize(
    ("change", "field"),
    [({"cause": None}, "'cause'"), ({"status": "ok", "page_status": None}, "'page_status'"),
     ({"group": None}, "'group'"), ({"operator": ["x"]}, "'operator'")],
)  # fmt: skip
def test_a_null_where_a_string_belongs_is_bad_input(
    capmap_bin: Path, tmp_path: Path, change: dict, field: str
) -> None:
    snapshot = tmp_path / "nulls.json"
    snapshot.write_text(json.dumps(snapshot_with(**change)))
    for command in reader_commands(snapshot, tmp_path):
        result = run_capmap(capmap_bin, *command)
        assert result.returncode == 2, (command, result.stderr)
        assert_read_or_refused(result, snapshot)
        assert field in result.stderr and "case 'relu'" in result.stderr, result.stderr


@pytest.mark.parametrize("file", fuzz_inputs("snapshot") + fuzz_inputs("kornia_file"), ids=lambda p: p.name)
def test_every_snapshot_fuzz_input_is_read_or_refused(capmap_bin: Path, tmp_path: Path, file: Path) -> None:
    commands = [["diff", file, file]] if "kornia_file" in file.parts else reader_commands(file, tmp_path)
    for command in commands:
        assert_read_or_refused(run_capmap(capmap_bin, *command), file)


@pytest.mark.parametrize("file", fuzz_inputs("store"), ids=lambda p: p.name)
def test_every_store_fuzz_input_is_read_or_refused(capmap_bin: Path, tmp_path: Path, file: Path) -> None:
    store = tmp_path / file.name
    shutil.copy(file, store)
    assert_read_or_refused(
        run_capmap(capmap_bin, "merge", "--store", store, "--out", tmp_path / "s.json", "--force"), store
    )
    assert_read_or_refused(run_capmap(capmap_bin, "causes", "--store", store), store)


@pytest.mark.parametrize("file", fuzz_inputs("cause_rules"), ids=lambda p: p.name)
def test_every_rules_fuzz_input_is_read_or_refused(capmap_bin: Path, tmp_path: Path, file: Path) -> None:
    snapshot = tmp_path / "s.json"
    snapshot.write_text(json.dumps(snapshot_with()))
    assert_read_or_refused(run_capmap(capmap_bin, "causes", snapshot, "--rules", file), file)


def test_the_fuzz_corpus_is_there() -> None:
    for target in ("snapshot", "kornia_file", "store", "worker_event", "cause_rules"):
        assert fuzz_inputs(target), f"no seeds for the {target} fuzz target"

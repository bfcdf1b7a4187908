"""`capmap merge`, `capmap causes` and `capmap diff` through the real binary, on SQLite stores
written here with the schema of docs/reference/store.md."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from capmap.store_schema import STORE_SQL
from capmap_testing import REPO, run_capmap

SCHEMA = json.loads((REPO / "docs" / "snapshot.schema.json").read_text())
PATHS = ["eager", "onnx", "export", "compile"]
UNKNOWN = "ValueError: expected 3 channels, got {n} in 'layer{n}'"


def run_info(torch: str = "2.13.0") -> dict[str, Any]:
    return {
        "library": {
            "name": "kornia",
            "version": "0.9.0",
            "revision": "abc",
            "source_url": "",
            "docs_url": "",
        },
        "versions": {
            "torch": torch,
            "onnx": "1.23.2",
            "onnxruntime": "1.32.0",
            "onnxscript": "0.7.2",
            "python": "3.11.9",
        },
        "settings": {"opset": 18, "export_strict": False},
        "device": "cpu",
        "cpu": "Test CPU",
        "cores": 2,
    }


def make_case(name: str) -> dict[str, Any]:
    op = name.split("[")[0]
    return {
        "name": name,
        "operator": op,
        "variant": "",
        "group": "color.rgb",
        "package": "color",
        "section": "rgb",
        "note": "",
        "ref": f"kornia.{op}",
        "where": "x.py:1",
        "tags": [],
        "skip": None,
        "check": True,
        "atol": 2e-4,
        "rtol": 1e-3,
    }


def write_store(
    path: Path, records: dict[tuple[str, str], dict[str, Any]], key: str = "k1", torch: str = "2.13.0"
) -> Path:
    db = sqlite3.connect(path)
    db.executescript(STORE_SQL)
    created = "2026-01-01T00:00:00Z"
    db.execute("INSERT INTO runs VALUES (?, ?, ?)", (key, json.dumps(run_info(torch)), created))
    db.execute("INSERT INTO shards VALUES (?, 1, 1, ?)", (key, json.dumps(PATHS)))
    for name in sorted({name for name, _ in records}):
        db.execute("INSERT INTO cases VALUES (?, ?, ?)", (key, name, json.dumps(make_case(name))))
    for (name, p), record in records.items():
        db.execute(
            "INSERT INTO records VALUES (?, ?, ?, ?, ?, ?, ?)",
            (key, name, p, record["status"], 0.5, json.dumps(record), "2026-01-01T00:00:01Z"),
        )
    db.commit()
    db.close()
    return path


def survey(failing: dict[str, dict[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
    """Four cases, every path ok except the `case path` keys in `failing`."""
    records = {}
    for name in ["rgb_to_gray", "rgb_to_hsv", "rgb_to_lab", "rgb_to_yuv"]:
        for p in PATHS:
            records[(name, p)] = failing.get(f"{name} {p}", {"status": "ok", "seconds": 0.5})
    return records


def unknown_failure(n: int) -> dict[str, Any]:
    return {"status": "export-fail", "error_type": "ValueError", "message": UNKNOWN.format(n=n)}


@pytest.fixture
def base_store(tmp_path: Path) -> Path:
    return write_store(
        tmp_path / "results.db",
        survey(
            {
                "rgb_to_hsv onnx": {
                    "status": "export-fail",
                    "error_type": "DispatchError",
                    "message": "No ONNX function found for <OpOverload(op='aten._linalg_svd', "
                    "overload='default')>.",
                },
                "rgb_to_lab onnx": unknown_failure(1),
                "rgb_to_yuv onnx": unknown_failure(2),
            }
        ),
    )


def test_merge_writes_a_snapshot_that_follows_the_schema(
    capmap_bin: Path, base_store: Path, tmp_path: Path
) -> None:
    out = tmp_path / "snapshot.json"
    kornia = tmp_path / "export_support.json"
    result = run_capmap(capmap_bin, "merge", "--store", base_store, "--out", out, "--kornia-json", kornia)
    assert result.returncode == 0, result.stderr
    text = out.read_text()
    snapshot = json.loads(text)
    jsonschema.validate(snapshot, SCHEMA)
    assert text == json.dumps(snapshot, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    hsv = snapshot["cases"][1]["paths"]["onnx"]
    assert hsv["cause"] == "No ONNX lowering for torch.linalg.svd (aten._linalg_svd)"
    layout = json.loads(kornia.read_text())
    assert layout["cases"][1]["onnx"] == "fail"
    assert set(layout) == {
        "cases",
        "device",
        "generated_at",
        "kornia",
        "onnx",
        "onnxruntime",
        "onnxscript",
        "opset",
        "python",
        "revision",
        "torch",
    }
    assert kornia.read_text() == json.dumps(layout, indent=2, sort_keys=True, ensure_ascii=False) + "\n"

    again = tmp_path / "again.json"
    assert run_capmap(capmap_bin, "merge", "--store", base_store, "--out", again).returncode == 0
    assert again.read_bytes() == out.read_bytes()


def test_refused_merge_exits_2_with_one_line_and_keeps_the_old_snapshot(
    capmap_bin: Path, tmp_path: Path
) -> None:
    records = survey({})
    del records[("rgb_to_lab", "export")]
    store = write_store(tmp_path / "results.db", records)
    out = tmp_path / "snapshot.json"
    out.write_text("old\n")
    result = run_capmap(capmap_bin, "merge", "--store", store, "--out", out)
    assert result.returncode == 2
    assert result.stderr == (
        "capmap: merge refused: 1 of 16 case × path records missing "
        "(rgb_to_lab export); finish the run or merge with --force\n"
    )
    assert out.read_text() == "old\n"

    forced = run_capmap(capmap_bin, "merge", "--store", store, "--out", out, "--force")
    assert forced.returncode == 0, forced.stderr
    header = json.loads(out.read_text())["header"]
    assert (header["complete"], header["missing"]) == (False, 1)


def test_mixed_run_keys_name_the_versions_that_differ(
    capmap_bin: Path, base_store: Path, tmp_path: Path
) -> None:
    other = write_store(tmp_path / "old.db", survey({}), key="k0", torch="2.12.0")
    result = run_capmap(
        capmap_bin, "merge", "--store", base_store, "--store", other, "--out", tmp_path / "s.json"
    )
    assert result.returncode == 2
    assert "records come from different run keys" in result.stderr
    assert "torch 2.12.0 vs 2.13.0" in result.stderr
    assert result.stderr.count("\n") == 1


def test_causes_groups_unclassified_messages(capmap_bin: Path, base_store: Path) -> None:
    result = run_capmap(capmap_bin, "causes", "--store", base_store, "--unclassified")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "unclassified: 2 of 3 failing case × path cells (66.7 %)"
    assert lines[1].startswith("unclassified graph breaks: ")
    assert lines[2] == "1 groups of unclassified messages (1 with failing cells, 0 with graph breaks)"
    assert lines[3].split() == ["2", "ValueError:", "expected", "<n>", "channels,", "got", "<n>", "in", "'_'"]
    assert "e.g. rgb_to_lab onnx:" in lines[4]

    summary = run_capmap(capmap_bin, "causes", "--store", base_store)
    assert summary.stdout.startswith("3 failing case × path pairs, 2 unclassified (66.7%)\n")


def test_causes_on_a_snapshot_applies_new_rules(capmap_bin: Path, base_store: Path, tmp_path: Path) -> None:
    out = tmp_path / "snapshot.json"
    assert run_capmap(capmap_bin, "merge", "--store", base_store, "--out", out).returncode == 0
    rules = tmp_path / "mine.toml"
    rules.write_text(
        '[[rule]]\nid = "channels"\nmessage = "expected \\\\d+ channels"\n'
        'category = "eager-failure"\ncause = "Wrong channel count"\n'
    )
    result = run_capmap(capmap_bin, "causes", out, "--rules", rules)
    assert result.returncode == 0, result.stderr
    assert "0 unclassified" in result.stdout
    assert "       2  Wrong channel count" in result.stdout


def test_causes_write_puts_new_causes_into_a_snapshot_and_nothing_else(
    capmap_bin: Path, base_store: Path, tmp_path: Path
) -> None:
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    assert run_capmap(capmap_bin, "merge", "--store", base_store, "--out", old).returncode == 0
    rules = tmp_path / "mine.toml"
    rules.write_text(
        '[[rule]]\nid = "channels"\nmessage = "expected \\\\d+ channels"\n'
        'category = "eager-failure"\ncause = "Wrong channel count"\n'
    )
    written = run_capmap(capmap_bin, "causes", old, "--rules", rules, "--write", new)
    assert written.returncode == 0, written.stderr
    before, after = json.loads(old.read_text()), json.loads(new.read_text())
    changed = []
    for was, now in zip(before["cases"], after["cases"], strict=True):
        for path, record in was["paths"].items():
            if record != now["paths"][path]:
                changed.append((was["name"], path, record.get("cause"), now["paths"][path]["cause"]))
                assert {k: v for k, v in record.items() if k not in ("cause", "category")} == {
                    k: v for k, v in now["paths"][path].items() if k not in ("cause", "category")
                }
    assert len(changed) == 2 and all(c[3] == "Wrong channel count" for c in changed)
    assert before["header"] == after["header"]
    # The shipped rules alone give the merge's own file back, byte for byte.
    same = run_capmap(capmap_bin, "causes", old, "--write", new)
    assert same.returncode == 0 and new.read_bytes() == old.read_bytes()
    # Nothing to write without a snapshot: one line, and no file.
    refused = run_capmap(capmap_bin, "causes", "--store", base_store, "--write", tmp_path / "x.json")
    assert refused.returncode != 0 and "give the SNAPSHOT" in refused.stderr
    assert not (tmp_path / "x.json").exists()


def test_diff_gates_on_regressions(capmap_bin: Path, base_store: Path, tmp_path: Path) -> None:
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    assert run_capmap(capmap_bin, "merge", "--store", base_store, "--out", old).returncode == 0
    regressed = write_store(
        tmp_path / "new.db",
        survey(
            {
                "rgb_to_gray compile": {
                    "status": "timeout",
                    "message": "the compile path ran past the time limit",
                },
                "rgb_to_lab onnx": unknown_failure(1),
                "rgb_to_yuv onnx": unknown_failure(2),
            }
        ),
    )
    assert run_capmap(capmap_bin, "merge", "--store", regressed, "--out", new).returncode == 0

    text = run_capmap(capmap_bin, "diff", old, new, "--fail-on", "regression")
    assert text.returncode == 1
    assert "Regressions (1):\n  rgb_to_gray compile: ok → timeout" in text.stdout
    assert "Fixes (1):\n  rgb_to_hsv onnx: fail → ok" in text.stdout

    as_json = run_capmap(capmap_bin, "diff", old, new, "--format", "json")
    assert as_json.returncode == 0
    assert json.loads(as_json.stdout)["counts"]["regressions"] == 1
    md = run_capmap(capmap_bin, "diff", old, new, "--format", "md")
    assert md.stdout.startswith("### ❌ capmap: 1 regression, 1 fix")
    assert run_capmap(capmap_bin, "diff", old, old, "--fail-on", "regression").returncode == 0


def test_diff_of_a_malformed_snapshot_is_one_line_exit_2(
    capmap_bin: Path, base_store: Path, tmp_path: Path
) -> None:
    good = tmp_path / "good.json"
    assert run_capmap(capmap_bin, "merge", "--store", base_store, "--out", good).returncode == 0
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema_version": 1, "header": {}, "cases": [{"paths": {}}]}')
    result = run_capmap(capmap_bin, "diff", good, bad)
    assert result.returncode == 2
    assert result.stderr == f"capmap: {bad}: not a capmap snapshot: cases[0] has no 'name'\n"
    assert result.stdout == ""


def test_the_python_store_schema_matches_what_the_engine_creates(capmap_bin: Path, tmp_path: Path) -> None:
    """Stores built by tests and benchmarks must be the stores `capmap run` writes."""
    real = tmp_path / "real.db"
    done = run_capmap(capmap_bin, "run", "capmap.registries.example", "--only", "relu", "--paths", "eager",
                      "--store", real, "--no-merge", "--jobs", "1")  # fmt: skip
    assert done.returncode == 0, done.stderr
    built = sqlite3.connect(tmp_path / "built.db")
    built.executescript(STORE_SQL)

    def tables(db: sqlite3.Connection) -> dict[str, list[tuple[Any, ...]]]:
        names = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {n: db.execute(f"PRAGMA table_info({n})").fetchall() for n in sorted(names)}

    assert tables(built) == tables(sqlite3.connect(real))

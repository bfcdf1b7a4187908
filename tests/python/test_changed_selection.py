"""`capmap run --changed`: on a temporary copy of Kornia, editing one source file re-runs exactly
the cases whose eager call executes it, the rest are carried over from the baseline, and the
merged snapshot equals a full run; registry edits and version changes select their cases."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from capmap.tracing.file_trace import source_code_hash
from capmap_testing import PYTHON_DIR, REPO, python_env, query

REGISTRY = REPO / "tests" / "python" / "registries" / "kornia_change_cases.py"
SCHEMA = json.loads((REPO / "docs" / "snapshot.schema.json").read_text())
PATHS = "eager,export"
EDITED = "kornia/filters/gaussian.py"
# Fields that measure time rather than outcome, and the marks of a carried result.
UNSTABLE = {"seconds", "export_seconds", "compile_seconds", "first_run_seconds", "stages", "log_tail"}
CARRY_MARKS = {"carried", "carried_from"}


def kornia_dir() -> Path:
    spec = importlib.util.find_spec("kornia")
    assert spec is not None and spec.origin is not None, "kornia is not installed"
    return Path(spec.origin).parent


def capmap(
    binary: Path, library: Path, *args: str | Path, timeout: float = 900, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """The binary with the copied Kornia first on the workers' import path."""
    env = python_env(PYTHONPATH=os.pathsep.join([str(library), str(PYTHON_DIR)]))
    return subprocess.run(
        [str(binary), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        check=False,
        cwd=cwd,
    )


def summary(stdout: str) -> dict[str, str]:
    line = next(line for line in stdout.splitlines() if line.startswith("summary: "))
    return dict(item.split("=", 1) for item in line.split()[1:])


def ran_cases(store: Path) -> set[str]:
    return {name for (name,) in query(store, "SELECT DISTINCT case_name FROM records")}


def cells(snapshot: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    return {(c["name"], p): r for c in snapshot["cases"] for p, r in c["paths"].items()}


def outcome(record: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in record.items() if k not in UNSTABLE | CARRY_MARKS}


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A private copy of the installed Kornia that the tests may edit."""
    root = tmp_path_factory.mktemp("lib")
    shutil.copytree(kornia_dir(), root / "kornia", ignore=shutil.ignore_patterns("__pycache__"))
    return root


@pytest.fixture(scope="module")
def baseline(capmap_bin: Path, library: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A full run of the registry on the unedited copy: the snapshot a pull request compares with."""
    out = tmp_path_factory.mktemp("baseline")
    done = capmap(
        capmap_bin, library, "run", REGISTRY, "--paths", PATHS, "--jobs", "2", "--store", out / "results.db"
    )
    assert done.returncode == 0, done.stderr
    return out / "snapshot.json"


def cases_executing(library: Path, file: str) -> set[str]:
    """Independently of capmap's trace: the cases whose call enters a function of `file`
    (seen through sys.setprofile in a fresh interpreter)."""
    script = f"""
import json, os, sys, torch
from capmap import registry
target = os.path.abspath({str(library / file)!r})
hits = []
for c in registry.load([{str(REGISTRY)!r}]).cases:
    seen = []
    def profile(frame, event, arg):
        if event == "call" and os.path.abspath(frame.f_code.co_filename) == target:
            seen.append(1)
    sys.setprofile(profile)
    with torch.no_grad():
        c.callable()(*c.inputs)
    sys.setprofile(None)
    if seen:
        hits.append(c.name)
print(json.dumps(hits))
"""
    env = python_env(PYTHONPATH=os.pathsep.join([str(library), str(PYTHON_DIR)]))
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, check=False
    )
    assert done.returncode == 0, done.stderr
    return set(json.loads(done.stdout))


def test_the_snapshot_records_the_files_each_case_executes(baseline: Path, library: Path) -> None:
    snapshot = json.loads(baseline.read_text())
    jsonschema.validate(snapshot, SCHEMA)
    by_case = {c["name"]: c for c in snapshot["cases"]}
    for name, entry in by_case.items():
        files = entry["files"]
        assert files and all(path.startswith("kornia/") for path in files), name
        for path, digest in files.items():
            # CONTENT.CODE: the content's hash, then the code's (docstrings and layout left out).
            source = (library / path).read_bytes()
            assert digest == f"{hashlib.sha256(source).hexdigest()[:16]}.{source_code_hash(source)}", path
        assert "files" not in entry["paths"]["eager"]  # the case's, not the path's
    assert EDITED in by_case["gaussian_blur2d"]["files"]
    assert "kornia/color/hsv.py" in by_case["rgb_to_hsv"]["files"]
    assert EDITED not in by_case["hflip"]["files"]


def test_a_changed_file_reruns_exactly_the_cases_that_execute_it(
    capmap_bin: Path, library: Path, baseline: Path, tmp_path: Path
) -> None:
    base = json.loads(baseline.read_text())
    executing = cases_executing(library, EDITED)
    recorded = {c["name"] for c in base["cases"] if EDITED in c["files"]}
    assert recorded == executing
    assert 0 < len(executing) <= len(base["cases"]) // 3

    edited = library / EDITED
    original = edited.read_text()
    # The file's code changed (a new name), what its functions compute did not.
    edited.write_text(original + "\n_PULL_REQUEST_MARK = 1\n")
    try:
        pr = tmp_path / "pr"
        done = capmap(capmap_bin, library, "run", REGISTRY, "--paths", PATHS, "--jobs", "2",
                      "--store", pr / "results.db", "--changed", edited, "--baseline", baseline)  # fmt: skip
        assert done.returncode == 0, done.stderr
        full = tmp_path / "full"
        done_full = capmap(capmap_bin, library, "run", REGISTRY, "--paths", PATHS, "--jobs", "2",
                           "--store", full / "results.db")  # fmt: skip
        assert done_full.returncode == 0, done_full.stderr
    finally:
        edited.write_text(original)

    total = len(base["cases"])
    n = len(executing)
    assert f"{n} of {total} cases selected by the change ({n} run a changed library file)" in done.stderr
    figures = summary(done.stdout)
    assert (figures["cases_ran"], figures["cases_carried"]) == (
        str(len(executing)),
        str(total - len(executing)),
    )
    assert ran_cases(pr / "results.db") == executing

    merged = json.loads((pr / "snapshot.json").read_text())
    jsonschema.validate(merged, SCHEMA)
    assert merged["header"]["complete"] is True
    for (name, path), record in cells(merged).items():
        if name in executing:
            assert "carried" not in record, (name, path)
        else:
            assert record["carried"] is True and record["carried_from"] == base["header"]["generated_at"]
    # The merged snapshot is what a full run on the edited copy gives, cell by cell.
    fresh = json.loads((full / "snapshot.json").read_text())
    assert {k: outcome(r) for k, r in cells(merged).items()} == {
        k: outcome(r) for k, r in cells(fresh).items()
    }
    assert {c["name"]: c["files"] for c in merged["cases"]} == {c["name"]: c["files"] for c in fresh["cases"]}
    # A case that ran again records the edited file's new content hash.
    merged_files = {c["name"]: c["files"] for c in merged["cases"]}
    base_files = {c["name"]: c["files"] for c in base["cases"]}
    assert merged_files["gaussian_blur2d"][EDITED] != base_files["gaussian_blur2d"][EDITED]

    # `capmap merge --baseline` (what CI runs on shard stores) writes the same snapshot.
    again = capmap(capmap_bin, library, "merge", "--store", pr / "results.db", "--baseline", baseline,
                   "--out", tmp_path / "again.json")  # fmt: skip
    assert again.returncode == 0, again.stderr
    carried_cells = (total - n) * 2
    assert f"merge: {carried_cells} case × path results carried over from {baseline}" in again.stderr
    assert (tmp_path / "again.json").read_bytes() == (pr / "snapshot.json").read_bytes()
    without = capmap(capmap_bin, library, "merge", "--store", pr / "results.db", "--out", tmp_path / "n.json")
    assert without.returncode == 2 and "records missing" in without.stderr

    md = capmap(capmap_bin, library, "diff", baseline, pr / "snapshot.json", "--format", "md")
    assert md.stdout.startswith("### ✅ capmap: no changes"), md.stdout
    cells_total = total * 2
    carried = (total - len(executing)) * 2
    assert (
        f"{cells_total - carried} of {cells_total} case × path results were measured for this change"
        in md.stdout
    )


def test_registry_edits_select_their_cases(
    capmap_bin: Path, library: Path, baseline: Path, tmp_path: Path
) -> None:
    copy = tmp_path / "registry" / REGISTRY.name
    copy.parent.mkdir()
    text = REGISTRY.read_text()
    box = 'case("box_blur", "filters.blur", kornia.filters.box_blur, IMAGE, kwargs={"kernel_size": (3, 3)})'
    assert box in text
    untouched = library / "kornia" / "io" / "io.py"  # no case executes it

    # A definition the inventory shows (here the note) selects its case alone.
    copy.write_text(text.replace(box, box[:-1] + ', note="edited")'))
    done = capmap(capmap_bin, library, "run", copy, "--paths", "eager", "--store", tmp_path / "a.db",
                  "--changed", untouched, "--baseline", baseline, "--out", tmp_path / "a")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert ran_cases(tmp_path / "a.db") == {"box_blur"}
    assert "1 of 9 cases selected by the change (1 changed definition)" in done.stderr

    # Another kernel size changes the case's input digest: the case runs without the registry
    # file being named, and naming the file selects no other case, since the digests of both
    # sides say what changed.
    copy.write_text(text.replace(box, box.replace("(3, 3)", "(5, 5)")))
    for store, named in (("b.db", untouched), ("c.db", copy)):
        out = tmp_path / f"{store}.out"
        done = capmap(capmap_bin, library, "run", copy, "--paths", "eager", "--store", tmp_path / store,
                      "--changed", named, "--baseline", baseline, "--out", out)  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert ran_cases(tmp_path / store) == {"box_blur"}, store
        assert "1 of 9 cases selected by the change (1 changed definition)" in done.stderr

    # Moving the case to the end of the file (another line, another place among the cases)
    # keeps its digest: nothing runs, and the merged snapshot cites the new line.
    moved = text.replace(box + "\n", "") + "\n" + box + "\n"
    assert moved != text and box in moved
    copy.write_text(moved)
    done = capmap(capmap_bin, library, "run", copy, "--paths", "eager", "--store", tmp_path / "d.db",
                  "--changed", copy, "--baseline", baseline, "--out", tmp_path / "d")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "0 of 9 cases selected by the change" in done.stderr
    merged = {c["name"]: c for c in json.loads((tmp_path / "d" / "snapshot.json").read_text())["cases"]}
    line = moved.splitlines().index(box) + 1
    assert merged["box_blur"]["where"].endswith(f"{copy.name}:{line}")

    # A baseline from before digests were recorded: the registry file decides, as it did.
    old = json.loads(baseline.read_text())
    for entry in old["cases"]:
        entry.pop("inputs")
    older = tmp_path / "old.json"
    older.write_text(json.dumps(old))
    done = capmap(capmap_bin, library, "run", copy, "--paths", "eager", "--store", tmp_path / "e.db",
                  "--changed", copy, "--baseline", older, "--out", tmp_path / "e")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "9 of 9 cases selected by the change (9 defined in a changed registry file)" in done.stderr


def test_other_versions_select_every_case(
    capmap_bin: Path, library: Path, baseline: Path, tmp_path: Path
) -> None:
    older = json.loads(baseline.read_text())
    older["header"]["versions"]["torch"] = "2.12.0"
    old_baseline = tmp_path / "older.json"
    old_baseline.write_text(json.dumps(older))
    done = capmap(capmap_bin, library, "run", REGISTRY, "--paths", "eager", "--store",
                  tmp_path / "v.db", "--changed", library / EDITED, "--baseline", old_baseline,
                  "--out", tmp_path / "v")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert re.search(
        r"all 9 cases run: versions or settings differ .*torch 2\.12\.0 vs 2\.13\.0", done.stderr
    )
    assert summary(done.stdout)["cases_carried"] == "0"
    merged = json.loads((tmp_path / "v" / "snapshot.json").read_text())
    assert merged["header"]["complete"] and not any("carried" in r for r in cells(merged).values())


def test_bad_change_options_are_one_line_and_exit_2(capmap_bin: Path, library: Path, tmp_path: Path) -> None:
    store = tmp_path / "results.db"
    done = capmap(
        capmap_bin, library, "run", REGISTRY, "--store", store, "--baseline", tmp_path / "none.json"
    )
    # Without a change a baseline only supplies durations; it is still read before anything runs.
    assert done.returncode == 2
    assert done.stderr == f"capmap: {tmp_path / 'none.json'}: cannot read: No such file or directory\n"
    done = capmap(
        capmap_bin, library, "run", REGISTRY, "--store", store, "--shard", "1/2", "--shard-by", "time"
    )
    assert done.returncode == 2
    assert done.stderr == (
        "capmap: --shard-by time: needs --baseline, so that every shard splits by the same durations\n"
    )
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    done = capmap(
        capmap_bin, library, "run", REGISTRY, "--store", store, "--changed", "x.py", "--baseline", bad
    )
    assert done.returncode == 2
    assert done.stderr == f"capmap: {bad}: not a capmap snapshot: no integer 'schema_version'\n"
    done = capmap(capmap_bin, library, "run", REGISTRY, "--store", store, "--changed-since", "no-such-rev",
                  timeout=600)  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.startswith("capmap: --changed-since no-such-rev: git diff failed")
    assert not store.exists()


def listed_plan(stdout: str) -> tuple[list[str], dict[str, str]]:
    """`capmap list --changed ...`: the cases it would run and its `predicted:` figures."""
    lines = stdout.splitlines()
    assert lines[0].split() == ["name", "expected_s"], stdout
    predicted = next(line for line in lines if line.startswith("predicted: "))
    names = [line.split()[0] for line in lines[1:] if not line.startswith("predicted: ")]
    return names, dict(item.split("=", 1) for item in predicted.split()[1:])


def citing(baseline: Path, file: str) -> set[str]:
    """The cases of the baseline whose results name a line of `file`."""
    cited = re.compile(rf"(?<![\w./]){re.escape(file)}:\d")
    snapshot = json.loads(baseline.read_text())
    return {c["name"] for c in snapshot["cases"] if cited.search(json.dumps(c["paths"]))}


def with_docstrings_edited(source: str) -> str:
    """`source` with every docstring's first line, the comments and the blank lines edited:
    another text and layout, the same code."""
    out = []
    for line in source.splitlines():
        if line.strip().startswith('"""') and len(line.strip()) > 3:
            line = line.replace('"""', '"""Reworded. ', 1)
        out.append(line + "  # note" if line.strip().startswith("return ") else line)
        if line.strip().startswith("import "):
            out.append("")
    return "\n".join(out) + "\n# Edited where no git history can see it.\n"


def test_changed_auto_finds_the_edit_by_code_hash(
    capmap_bin: Path, library: Path, baseline: Path, tmp_path: Path
) -> None:
    executing = cases_executing(library, EDITED)
    edited = library / EDITED
    original = edited.read_text()
    # Docstrings, comments and layout: the code is the same, so only a result that cites a line
    # of the file runs again (one is given a frame there), lest it point at a line that moved.
    cited = json.loads(baseline.read_text())
    blur = next(c for c in cited["cases"] if c["name"] == "gaussian_blur2d")
    blur["paths"]["export"]["frames"] = [f"{EDITED}:42 in gaussian_blur2d"]
    cited_baseline = tmp_path / "cited.json"
    cited_baseline.write_text(json.dumps(cited))
    edited.write_text(with_docstrings_edited(original))
    try:
        assert edited.read_text() != original
        layout = capmap(capmap_bin, library, "list", REGISTRY, "--changed-auto", "--baseline", baseline,
                        "--run-paths", PATHS)  # fmt: skip
        layout_cited = capmap(capmap_bin, library, "list", REGISTRY, "--changed-auto", "--baseline",
                              cited_baseline, "--run-paths", PATHS)  # fmt: skip
    finally:
        edited.write_text(original)
    assert layout.returncode == 0, layout.stderr
    assert "--changed-auto: 0 of " in layout.stderr
    assert "--changed-auto: 1 more differ only in docstrings, comments or layout: " in layout.stderr
    assert f"they select only the cases whose results cite their lines: {EDITED}" in layout.stderr
    assert set(listed_plan(layout.stdout)[0]) == citing(baseline, EDITED)
    assert layout_cited.returncode == 0, layout_cited.stderr
    assert set(listed_plan(layout_cited.stdout)[0]) == citing(baseline, EDITED) | {"gaussian_blur2d"}
    assert "(1 cite a line that moved)" in layout_cited.stderr or citing(baseline, EDITED)
    edited.write_text(original + "\n_EDITED_WHERE_NO_GIT_HISTORY_CAN_SEE_IT = 1\n")
    try:
        listed = capmap(capmap_bin, library, "list", REGISTRY, "--changed-auto", "--baseline", baseline,
                        "--run-paths", PATHS, "--jobs", "2")  # fmt: skip
        assert listed.returncode == 0, listed.stderr
        done = capmap(capmap_bin, library, "run", REGISTRY, "--paths", PATHS, "--jobs", "1",
                      "--store", tmp_path / "auto.db", "--changed-auto", "--baseline", baseline,
                      "--out", tmp_path / "auto")  # fmt: skip
        assert done.returncode == 0, done.stderr
    finally:
        edited.write_text(original)
    assert "--changed-auto: 1 of " in done.stderr and f"files differ: {EDITED}" in done.stderr
    assert ran_cases(tmp_path / "auto.db") == executing
    names, predicted = listed_plan(listed.stdout)
    assert set(names) == executing
    assert predicted["cases"] == str(len(executing)) and predicted["jobs"] == "2"
    assert predicted["unknown"] == "0" and float(predicted["wall_s"]) > 0
    # Nothing edited: nothing differs, nothing runs.
    unchanged = capmap(capmap_bin, library, "list", REGISTRY, "--changed-auto", "--baseline", baseline,
                       "--run-paths", PATHS)  # fmt: skip
    assert unchanged.returncode == 0, unchanged.stderr
    assert listed_plan(unchanged.stdout)[0] == []


def test_changed_since_leaves_out_files_whose_code_is_the_same(
    capmap_bin: Path, library: Path, baseline: Path, tmp_path: Path
) -> None:
    """In a git checkout of the library: a docstring edit since the revision selects nothing,
    a code edit selects the cases that execute the file."""
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(library)]
    if not (library / ".git").exists():
        # As a library's own checkout does: the bytecode Python writes beside the sources is no
        # change of the library's.
        (library / ".gitignore").write_text("__pycache__/\n")
        subprocess.run([*git, "init", "-q"], check=True)
        subprocess.run([*git, "add", "-A"], check=True)
        subprocess.run([*git, "commit", "-q", "-m", "base"], check=True)
    edited = library / EDITED
    original = edited.read_text()
    executing = cases_executing(library, EDITED)
    try:
        edited.write_text(with_docstrings_edited(original))
        layout = capmap(capmap_bin, library, "list", REGISTRY, "--changed-since", "HEAD", "--baseline",
                        baseline, "--run-paths", PATHS, cwd=library)  # fmt: skip
        edited.write_text(original.replace("return ", "return 1 * ", 1))
        code = capmap(capmap_bin, library, "list", REGISTRY, "--changed-since", "HEAD", "--by-file",
                      "--baseline", baseline, "--run-paths", PATHS, cwd=library)  # fmt: skip
    finally:
        edited.write_text(original)
    assert layout.returncode == 0, layout.stderr
    assert "--changed-since HEAD: 1 of 1 changed files differ only in docstrings" in layout.stderr
    assert EDITED.split("/")[-1] in layout.stderr
    assert set(listed_plan(layout.stdout)[0]) == citing(baseline, EDITED)
    assert code.returncode == 0, code.stderr
    assert "differ only in" not in code.stderr
    assert set(listed_plan(code.stdout)[0]) == executing and executing


def test_shards_by_time_split_the_baseline_s_durations(
    capmap_bin: Path, library: Path, baseline: Path
) -> None:
    base = json.loads(baseline.read_text())
    seconds = {c["name"]: sum(c["paths"][p]["seconds"] for p in PATHS.split(",")) for c in base["cases"]}
    shards: list[list[str]] = []
    for index in (1, 2, 3):
        done = capmap(capmap_bin, library, "list", REGISTRY, "--baseline", baseline, "--run-paths", PATHS,
                      "--shard", f"{index}/3", "--shard-by", "time", "--jobs", "1")  # fmt: skip
        assert done.returncode == 0, done.stderr
        names, predicted = listed_plan(done.stdout)
        shards.append(names)
        assert float(predicted["wall_s"]) == pytest.approx(sum(seconds[n] for n in names), abs=0.2)
        walls = [float(w) for w in predicted["shard_walls_s"].split(",")]
        assert len(walls) == 3 and float(predicted["wall_s"]) == walls[index - 1]
    assert sorted(n for names in shards for n in names) == sorted(seconds)
    # Longest first: no shard holds more than an even share plus one case.
    loads = [sum(seconds[n] for n in names) for names in shards]
    assert max(loads) <= sum(seconds.values()) / 3 + max(seconds.values())
    refused = capmap(capmap_bin, library, "list", REGISTRY, "--shard", "1/3", "--shard-by", "time")
    assert refused.returncode == 2 and "--shard-by time: needs --baseline" in refused.stderr


def test_a_fresh_store_starts_the_baseline_s_longest_cases_first(
    capmap_bin: Path, library: Path, baseline: Path, tmp_path: Path
) -> None:
    base = json.loads(baseline.read_text())
    seconds = {c["name"]: sum(c["paths"][p]["seconds"] for p in PATHS.split(",")) for c in base["cases"]}
    store = tmp_path / "fresh.db"
    done = capmap(capmap_bin, library, "run", REGISTRY, "--paths", PATHS, "--jobs", "1", "--store", store,
                  "--baseline", baseline, "--no-merge")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert summary(done.stdout)["cases_carried"] == "0"
    # One slot: the records arrive in the order the queue hands the tasks out.
    rows = query(store, "SELECT case_name FROM records WHERE path='eager' ORDER BY rowid")
    order = [name for (name,) in rows]
    assert order == sorted(seconds, key=lambda n: -seconds[n])

"""`capmap repro`: scripts that reproduce failing cells outside capmap, and `--check`.

One real survey of tests/python/registries/repro_cases.py (one failure of each kind) with
`capmap run --repro`, then one real `capmap repro --check`. The scripts run under an import
guard: a script of a public target may not import capmap at all, a script that loads its case
from the registry may import only the registry loader (capmap, capmap.cases, capmap.deferred,
capmap.registry, and the surveyed library's root it notes: capmap.surveyed_library, capmap.errors).
"""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import torch
from capmap.cases import Case
from capmap.deferred import deferred
from capmap.repro.target import choose_target
from capmap_testing import PYTHON_DIR, python_env, query, records, run_capmap

REPRO_CASES = Path(__file__).resolve().parent / "registries" / "repro_cases.py"
NOT_FAILING = {"ok", "ok-breaks", "ok-unverified", "skipped", "eager-fail", "no-tensor-output"}
# (case, path) → the recorded status each kind of failure must have.
KINDS = {
    ("branch_on_value", "export"): "fail",
    ("cummax", "onnx"): "export-fail",
    ("adaptive_max_pool", "onnx"): "export-fail",
    ("matmul[int8]", "onnx"): "checker-fail",
    ("erf[float64]", "onnx"): "ort-load-fail",
    ("diverges_when_captured", "export"): "mismatch",
    ("breaks_then_fails", "compile"): "fail",
    ("crashes_when_exporting", "export"): "crashed",
    ("conv[float64]", "onnx"): "ort-load-fail",
}
PUBLIC_TARGETS = ["cummax.onnx", "adaptive_max_pool.onnx", "matmul_int8_.onnx", "erf_float64_.onnx"]
HARNESS_CELL = ("fails_only_in_the_harness", "export")
# The ONNX exporter traces with torch.export too, so the harness defect shows on both paths.
HARNESS_CELLS = {HARNESS_CELL, ("fails_only_in_the_harness", "onnx")}

# Installed as sitecustomize for every process started with the guard on PYTHONPATH; it acts only
# in a repro script (its file name ends in .onnx.py, .export.py or .compile.py). It asks at each
# import, not at start-up: `repro --check` forks its scripts from a launcher, whose own argv
# names the launcher.
IMPORT_GUARD = """
import sys
from pathlib import Path

LOADER = {
    "capmap",
    "capmap.cases",
    "capmap.deferred",
    "capmap.registry",
    "capmap.surveyed_library",
    "capmap.errors",
    # The loader seeds the generators and records how the registry's tensors are made.
    "capmap.random_state",
    "capmap.tensor_recipes",
}


class _NoCapmap:
    def find_spec(self, name, path=None, target=None):
        script = sys.argv[0] if sys.argv else ""
        if not script.endswith((".onnx.py", ".export.py", ".compile.py")):
            return None
        if name == "capmap" or name.startswith("capmap."):
            allowed = LOADER if "capmap.registry" in Path(script).read_text() else set()
            if name not in allowed:
                raise ImportError(f"a repro script imported {name}")
        return None


sys.meta_path.insert(0, _NoCapmap())
"""


@dataclass
class Survey:
    folder: Path
    store: Path
    run: subprocess.CompletedProcess[str]
    check: subprocess.CompletedProcess[str]
    guard_env: dict[str, str]


def _guard_env(folder: Path) -> dict[str, str]:
    guard = folder / "guard"
    guard.mkdir()
    (guard / "sitecustomize.py").write_text(IMPORT_GUARD)
    env = python_env()
    env["PYTHONPATH"] = f"{guard}:{PYTHON_DIR}"
    return env


@pytest.fixture(scope="module")
def survey(capmap_bin: Path, tmp_path_factory: pytest.TempPathFactory) -> Survey:
    folder = tmp_path_factory.mktemp("repro")
    registry = folder / "repro_cases.py"
    shutil.copy(REPRO_CASES, registry)
    store = folder / "out" / "results.db"
    paths = "export,onnx,compile"
    run = run_capmap(
        capmap_bin,
        "run",
        registry,
        "--store",
        store,
        "--jobs",
        "2",
        "--paths",
        paths,
        "--repro",
        timeout=1200,
        cwd=folder,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    env = _guard_env(folder)
    check = subprocess.run(
        [str(capmap_bin), "repro", "--check", "--store", str(store), "--timeout", "300"],
        capture_output=True,
        text=True,
        timeout=1800,
        env=env,
        cwd=folder,
        check=False,
    )
    return Survey(folder, store, run, check, env)


def _failing(store: Path) -> dict[tuple[str, str], dict]:
    return {k: r for k, r in records(store).items() if k[1] != "eager" and r["status"] not in NOT_FAILING}


def _verdicts(output: str) -> dict[tuple[str, str], bool]:
    """(case, path) → reproduced, from the check's lines `reproduced  NAME PATH: ...`."""
    found = {}
    for line in output.splitlines():
        for mark, ok in (("reproduced    ", True), ("NOT reproduced", False)):
            if line.startswith(mark + "  "):
                name, path = line[len(mark) + 2 :].split(":", 1)[0].rsplit(" ", 1)
                found[(name, path)] = ok
    return found


def test_the_registry_holds_one_failure_of_each_kind(survey: Survey) -> None:
    stored = records(survey.store)
    for cell, status in KINDS.items():
        assert stored[cell]["status"] == status, (cell, stored[cell])
    assert stored[("breaks_then_fails", "compile")]["graph_breaks"] > 0
    assert stored[("crashes_when_exporting", "export")]["signal"] == "SIGSEGV"


def test_run_with_repro_writes_a_script_for_every_failing_cell(survey: Survey) -> None:
    folder = survey.store.parent / "repro"
    written = {p.stem for p in folder.glob("*.py")}
    expected = {f"{name.replace('[', '_').replace(']', '_')}.{path}" for name, path in _failing(survey.store)}
    assert written == expected
    # Public targets and their inputs travel in a .pt file; registry targets load from the registry.
    for stem in PUBLIC_TARGETS:
        assert (folder / f"{stem}.pt").is_file()
    assert not (folder / "branch_on_value.export.pt").exists()


def test_every_kind_of_failure_reproduces_in_a_fresh_process(survey: Survey) -> None:
    verdicts = _verdicts(survey.check.stdout)
    assert set(verdicts) == set(_failing(survey.store)), survey.check.stdout
    for cell in KINDS:
        assert verdicts[cell], f"{cell} did not reproduce:\n{survey.check.stdout}"
    assert all(ok for cell, ok in verdicts.items() if cell not in HARNESS_CELLS), survey.check.stdout


def test_a_failure_of_the_harness_is_caught(survey: Survey) -> None:
    assert survey.check.returncode == 1, survey.check.stderr
    verdicts = _verdicts(survey.check.stdout)
    assert [cell for cell, ok in verdicts.items() if not ok] == sorted(HARNESS_CELLS)
    listed = survey.check.stdout.split("not reproduced (", 1)[1]
    assert "fails_only_in_the_harness export: recorded fail: state left behind by the harness" in listed
    assert "the script gave ok" in listed
    assert "repro check: " in survey.check.stdout and " of " in survey.check.stdout


def test_scripts_show_the_torch_calls_and_name_what_to_expect(survey: Survey) -> None:
    folder = survey.store.parent / "repro"
    onnx_script = (folder / "matmul_int8_.onnx.py").read_text()
    assert "# Expected outcome: checker-fail (InferenceError): [ShapeInferenceError]" in onnx_script
    assert "torch 2.13.0" in onnx_script and "run key " in onnx_script
    for call in (
        "torch.onnx.export(",
        "onnx.checker.check_model(proto, full_check=True)",
        "InferenceSession(",
    ):
        assert call in onnx_script
    assert "import capmap" not in onnx_script and '__import__("capmap' not in onnx_script
    assert "target = torch.matmul" in onnx_script
    assert "torch.export.export(capture_module().eval()" in (folder / "branch_on_value.export.py").read_text()
    assert (
        'torch.compile(call, backend="inductor", fullgraph=False)'
        in (folder / "breaks_then_fails.compile.py").read_text()
    )
    module_script = (folder / "adaptive_max_pool.onnx.py").read_text()
    assert "a torch.nn.modules.pooling.AdaptiveMaxPool2d, as the registry built it" in module_script


CONV_WEIGHTS = """
import runpy
import sys

import torch
from capmap import deferred

script = runpy.run_path(sys.argv[1], run_name="repro")  # everything but the run itself
built = deferred(torch.nn.Conv2d, 2, 3, 3, dtype=torch.float64).build()
ours, theirs = script["target"].state_dict(), built.state_dict()
assert ours.keys() == theirs.keys() and all(torch.equal(ours[k], theirs[k]) for k in ours)
assert not script["target"].training
print("same weights")
"""


def test_a_deferred_module_is_built_in_the_script_as_capmap_builds_it(survey: Survey) -> None:
    script = survey.store.parent / "repro" / "conv_float64_.onnx.py"
    text = script.read_text()
    call = "torch.nn.Conv2d(2, 3, 3, dtype=torch.float64)"
    assert f"    target = {call}" in text
    assert "torch.manual_seed(" in text
    assert not re.search(r"^\s*(import|from) capmap", text, re.MULTILINE) and '__import__("capmap' not in text
    # The .pt file holds the inputs only: the weights come from the constructor and the seed.
    saved = torch.load(script.with_suffix(".pt"), weights_only=False)
    assert set(saved) == {"inputs"}
    done = subprocess.run(
        [sys.executable, "-c", CONV_WEIGHTS, str(script)],
        cwd=script.parent,
        env=python_env(),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0 and "same weights" in done.stdout, done.stderr[-2000:]


def test_nested_deferred_calls_are_spelled_out_and_build_what_capmap_builds() -> None:
    conv = deferred(torch.nn.Conv2d, 2, 3, 3)
    cases = {
        "seq": deferred(torch.nn.Sequential, conv, deferred(torch.nn.Linear, 5, 4)),
        "weight": deferred(getattr, conv, "weight"),
    }
    for name, target in cases.items():
        chosen = choose_target(Case(name, "toy", target, [torch.zeros(1, 2, 5, 5)]))
        assert not chosen.from_registry, chosen.lines
        code = "\n".join(chosen.lines)
        assert "torch.nn.Conv2d(2, 3, 3)" in code and "capmap." not in code
        scope: dict[str, object] = {"torch": torch}
        exec(code, scope)  # noqa: S102 - the script's own lines, in a fresh RNG state
        built = target.build()
        ours = scope["target"]
        if isinstance(built, torch.nn.Module):
            assert isinstance(ours, torch.nn.Module)
            theirs = built.state_dict()
            assert ours.state_dict().keys() == theirs.keys()
            assert all(torch.equal(v, theirs[k]) for k, v in ours.state_dict().items())
        else:
            assert isinstance(ours, torch.Tensor) and torch.equal(ours, built)
    assert "conv2d.weight" in "\n".join(choose_target(Case("w", "toy", cases["weight"], [])).lines)


def test_the_import_guard_refuses_capmap_in_a_script(survey: Survey, tmp_path: Path) -> None:
    # The check above ran every script under this guard; it must bite.
    script = tmp_path / "sneaky.export.py"
    script.write_text("import capmap.probes\n")
    done = subprocess.run(
        ["python3", script.name],
        cwd=tmp_path,
        env=survey.guard_env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode != 0 and "a repro script imported capmap" in done.stderr


LAUNCHED = """\
import os
import sys

print("capmap modules:", sorted(m for m in sys.modules if m.split(".")[0] == "capmap"))
print("argv:", sys.argv, "cwd:", os.getcwd(), "path0:", sys.path[0], "name:", __name__)
print("outcome: ok")
import capmap.probes
"""


def test_a_launched_script_runs_as_its_own_main_and_sees_no_capmap(
    survey: Survey, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`repro --check` forks each script from a launcher that imported torch: the script must
    still run as `python SCRIPT` would, in its folder, with nothing of capmap imported (the
    guard bites there too), and its crash, exit and time limit are its own."""
    from capmap.repro.check import ScriptLauncher, run_script

    monkeypatch.setenv("PYTHONPATH", survey.guard_env["PYTHONPATH"])
    folder = tmp_path / "scripts"
    folder.mkdir()
    (folder / "look.export.py").write_text(LAUNCHED)
    (folder / "segv.export.py").write_text("import ctypes\n\nctypes.string_at(0)\n")
    (folder / "exits.export.py").write_text("import sys\n\nsys.exit(3)\n")
    (folder / "sleeps.export.py").write_text("import time\n\ntime.sleep(60)\n")
    launcher = ScriptLauncher()
    try:
        looked = run_script(folder / "look.export.py", 120, 2**33, launcher=launcher)
        crashed = run_script(folder / "segv.export.py", 120, 2**33, launcher=launcher)
        exited = run_script(folder / "exits.export.py", 120, 2**33, launcher=launcher)
        slept = run_script(folder / "sleeps.export.py", 2, 2**33, launcher=launcher)
    finally:
        launcher.close()
    output = looked.output_tail
    assert "capmap modules: []" in output, output
    assert f"argv: ['look.export.py'] cwd: {folder} path0: {folder} name: __main__" in output
    assert "ImportError: a repro script imported capmap" in output, output
    assert (crashed.status, crashed.signal) == ("crashed", "SIGSEGV")
    assert (exited.status, exited.exit) == ("crashed", 3)
    assert slept.status == "timeout"


def test_verdicts_reach_the_store_and_the_merged_snapshot(
    survey: Survey, capmap_bin: Path, tmp_path: Path
) -> None:
    rows = query(survey.store, "SELECT case_name, path, reproduced, outcome, script FROM repro")
    assert {(r[0], r[1]) for r in rows} == set(_failing(survey.store))
    snapshot_file = tmp_path / "snapshot.json"
    merged = run_capmap(capmap_bin, "merge", "--store", survey.store, "--out", snapshot_file)
    assert merged.returncode == 0, merged.stderr
    snapshot = json.loads(snapshot_file.read_text())
    paths = {(c["name"], p): r for c in snapshot["cases"] for p, r in c["paths"].items()}
    assert paths[HARNESS_CELL]["reproduced"] is False
    assert paths[HARNESS_CELL]["repro_outcome"] == "ok"
    assert paths[("cummax", "onnx")]["reproduced"] is True
    assert paths[("cummax", "onnx")]["repro_script"].startswith(
        "# Reproduces capmap's record of case 'cummax'"
    )
    assert "reproduced" not in paths[("plain", "onnx")]
    page = tmp_path / "page.html"
    rendered = run_capmap(capmap_bin, "render", snapshot_file, "--html", page)
    assert rendered.returncode == 0, rendered.stderr
    assert '"rt":' in page.read_text()
    # A verdict is shown only with the record it checked: a record measured again drops it.
    stale_store = tmp_path / "stale.db"
    shutil.copy(survey.store, stale_store)
    with sqlite3.connect(stale_store) as db:
        db.execute("UPDATE repro SET record_created = 'earlier' WHERE case_name = 'cummax'")
    stale = tmp_path / "stale.json"
    assert run_capmap(capmap_bin, "merge", "--store", stale_store, "--out", stale).returncode == 0
    stale_paths = {
        (c["name"], p): r for c in json.loads(stale.read_text())["cases"] for p, r in c["paths"].items()
    }
    assert "reproduced" not in stale_paths[("cummax", "onnx")]
    assert stale_paths[("erf[float64]", "onnx")]["reproduced"] is True


def test_check_of_a_snapshot_sample_marks_the_snapshot(
    survey: Survey, capmap_bin: Path, tmp_path: Path
) -> None:
    snapshot_file = tmp_path / "snapshot.json"
    shutil.copy(survey.store.parent / "snapshot.json", snapshot_file)
    done = subprocess.run(
        [
            str(capmap_bin),
            "repro",
            "--check",
            "--store",
            str(snapshot_file),
            "--sample",
            "2",
            "--registry",
            str(survey.folder / "repro_cases.py"),
            "--dir",
            str(tmp_path / "scripts"),
        ],
        capture_output=True,
        text=True,
        timeout=900,
        env=survey.guard_env,
        cwd=tmp_path,
        check=False,
    )
    assert done.returncode in (0, 1), done.stderr
    snapshot = json.loads(snapshot_file.read_text())
    marked = [(c["name"], p) for c in snapshot["cases"] for p, r in c["paths"].items() if "reproduced" in r]
    assert len(marked) == 2
    assert set(marked) <= set(_failing(survey.store))
    assert "of 2 failing cells reproduce" in done.stdout


def test_repro_writes_the_script_of_one_case(survey: Survey, capmap_bin: Path, tmp_path: Path) -> None:
    out = tmp_path / "cummax_repro.py"
    done = run_capmap(capmap_bin, "repro", "cummax", "--store", survey.store, "-o", out, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "cummax_repro.pt").is_file()
    text = out.read_text()
    assert "# Expected outcome: export-fail (DispatchError): No ONNX function found" in text
    assert text == (survey.store.parent / "repro" / "cummax.onnx.py").read_text().replace(
        "cummax.onnx.pt", "cummax_repro.pt"
    )


def test_repro_into_a_folder_writes_each_failing_path(
    survey: Survey, capmap_bin: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "scripts"
    folder.mkdir()
    done = run_capmap(capmap_bin, "repro", "diverges_when_captured", "--store", survey.store, "-o", folder)
    assert done.returncode == 0, done.stderr
    written = sorted(p.name for p in folder.glob("*.py"))
    assert len(written) > 1 and all(n.startswith("diverges_when_captured.") for n in written)
    # A folder that does not exist yet, named with a trailing slash, is made.
    fresh = f"{tmp_path}/new/"
    done = run_capmap(capmap_bin, "repro", "cummax", "--store", survey.store, "-o", fresh)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "new" / "cummax.onnx.py").is_file()


def _copy_run(db: sqlite3.Connection, old: str, new: str, created: str) -> None:
    """Every row of run `old`, again under the run key `new`, the run made at `created`."""
    db.execute("INSERT INTO runs SELECT ?, info, ? FROM runs WHERE run_key=?", (new, created, old))
    tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
    for table in tables:
        columns = [c[1] for c in db.execute(f"PRAGMA table_info({table})")]
        if table == "runs" or "run_key" not in columns:
            continue
        picked = ", ".join("?" if c == "run_key" else c for c in columns)
        db.execute(f"INSERT INTO {table} SELECT {picked} FROM {table} WHERE run_key=?", (new, old))


def test_repro_reads_the_run_merge_reads(survey: Survey, capmap_bin: Path, tmp_path: Path) -> None:
    # The newest run is the newest by its time, then by its key: its key sorts before the survey's,
    # and a run of the same time with a smaller key loses the tie.
    store = tmp_path / "results.db"
    with sqlite3.connect(survey.store) as source, sqlite3.connect(store) as db:
        source.backup(db)
        ((old,),) = db.execute("SELECT run_key FROM runs").fetchall()
        _copy_run(db, old, "0-newest", "2999-01-01T00:00:00Z")
        _copy_run(db, old, "0-as-new-smaller-key", "2999-01-01T00:00:00Z")
    merged = run_capmap(capmap_bin, "merge", "--store", store, "--out", tmp_path / "snapshot.json")
    assert merged.returncode == 0, merged.stderr
    assert json.loads((tmp_path / "snapshot.json").read_text())["header"]["run_key"] == "0-newest"
    # `capmap repro` passes the key it chose; `python -m capmap.repro` on its own chooses by the same rule.
    chosen = run_capmap(capmap_bin, "repro", "cummax", "--store", store, "-o", tmp_path / "c.py")
    assert chosen.returncode == 0, chosen.stderr
    alone = subprocess.run(
        [sys.executable, "-m", "capmap.repro", "cummax", "--store", str(store), "-o", str(tmp_path / "p.py")],
        capture_output=True,
        text=True,
        timeout=300,
        env=python_env(),
        check=False,
    )
    assert alone.returncode == 0, alone.stderr
    for script in ("c.py", "p.py"):
        assert "(run key 0-newest;" in (tmp_path / script).read_text(), script


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        (["nosuch_case"], "no record of case 'nosuch_case'"),
        (["plain"], "case 'plain' fails on no path"),
        (["diverges_when_captured", "-o", "x.py"], "fails on several paths"),
    ],
)
def test_bad_requests_get_one_line_and_exit_2(
    survey: Survey, capmap_bin: Path, tmp_path: Path, args: list[str], problem: str
) -> None:
    done = run_capmap(capmap_bin, "repro", *args, "--store", survey.store, cwd=tmp_path)
    assert done.returncode == 2
    assert problem in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_a_missing_or_foreign_store_is_refused(capmap_bin: Path, tmp_path: Path) -> None:
    missing = run_capmap(capmap_bin, "repro", "--check", "--store", tmp_path / "none.db")
    assert missing.returncode == 2 and "no such results store or snapshot" in missing.stderr
    foreign = tmp_path / "notes.txt"
    foreign.write_text("hello")
    refused = run_capmap(capmap_bin, "repro", "--check", "--store", foreign)
    assert refused.returncode == 2 and "notes.txt" in refused.stderr
    assert foreign.read_text() == "hello"


def test_a_function_under_a_shadowed_submodule_is_reached_by_its_module(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The package's function `accuracy` shadows its submodule `accuracy`, as torchmetrics' does.
    package = tmp_path / "shadowpkg"
    package.mkdir()
    (package / "__init__.py").write_text("from shadowpkg.accuracy import accuracy\n")
    (package / "accuracy.py").write_text(
        "def accuracy(x):\n    return x\n\n\ndef binary_accuracy(x):\n    return x * 2\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    import importlib

    from capmap.repro.target import _expression

    target = importlib.import_module("shadowpkg.accuracy").binary_accuracy
    expression, imports = _expression("shadowpkg.accuracy.binary_accuracy", target)
    assert expression == 'importlib.import_module("shadowpkg.accuracy").binary_accuracy'
    assert imports == ["importlib"]
    assert eval(expression, {"importlib": importlib}) is target


def test_a_script_that_raises_before_its_verdict_is_a_failed_check(tmp_path: Path) -> None:
    from capmap.repro.check import CHECK_FAILED, reproduces, run_script

    script = tmp_path / "broken.py"
    script.write_text("import missing_module_of_the_check\n")
    outcome = run_script(script, 60, 2**31)
    assert outcome.status == CHECK_FAILED
    assert outcome.message == "ModuleNotFoundError: No module named 'missing_module_of_the_check'"
    assert "the check itself failed" in outcome.line()
    assert not reproduces({"status": "crashed", "exit": 1}, outcome)

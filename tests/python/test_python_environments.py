"""Workers under another interpreter (`capmap run --python`): a second environment made by
`python -m capmap.make_env` with one package of another version, one store for both, and the
one-line refusals for interpreters that cannot run a worker."""

from __future__ import annotations

import importlib.metadata
import json
import subprocess
import sys
from pathlib import Path

import pytest
from capmap_testing import EXAMPLE, python_env, query, run_capmap

# A pure-Python package the ONNX path imports, in another release that works with this torch
# (0.5.x needs an onnx-ir whose API this torch's exporter no longer finds).
OTHER_ONNXSCRIPT = "0.7.1"
OTHER_PINS = [f"onnxscript=={OTHER_ONNXSCRIPT}"]


@pytest.fixture(scope="module")
def second_env(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if importlib.metadata.version("onnxscript") == OTHER_ONNXSCRIPT:
        pytest.fail("this environment already has the onnxscript the second one should differ by")
    folder = tmp_path_factory.mktemp("envs") / "other-onnxscript"
    done = subprocess.run(
        [sys.executable, "-m", "capmap.make_env", str(folder), *OTHER_PINS, "--system-site-packages"],
        capture_output=True,
        text=True,
        env=python_env(),
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "ready in" in done.stdout
    facts = json.loads((folder / "capmap-env.json").read_text())
    assert facts["installed"]["onnxscript"] == OTHER_ONNXSCRIPT
    assert (Path(facts["python"]).parent.parent / "capmap-env.json").exists()
    return Path(facts["python"])


def _run(capmap_bin: Path, store: Path, *extra: str | Path) -> subprocess.CompletedProcess[str]:
    return run_capmap(
        capmap_bin,
        "run",
        EXAMPLE,
        "--only",
        "relu",
        "--paths",
        "eager,onnx",
        "--jobs",
        "1",
        "--store",
        store,
        *extra,
        timeout=300,
    )


def test_two_environments_share_one_store_and_merge_picks_either(
    capmap_bin: Path, second_env: Path, tmp_path: Path
) -> None:
    store = tmp_path / "both.db"
    here = _run(capmap_bin, store, "--no-merge")
    assert here.returncode == 0, here.stderr
    there = _run(capmap_bin, store, "--no-merge", "--python", second_env)
    assert there.returncode == 0, there.stderr
    assert f"workers run under {second_env}" in there.stderr

    runs = query(store, "SELECT run_key, info FROM runs")
    assert len(runs) == 2
    onnxscripts = {json.loads(info)["versions"]["onnxscript"]: key for key, info in runs}
    assert set(onnxscripts) == {importlib.metadata.version("onnxscript"), OTHER_ONNXSCRIPT}
    # The second environment's worker really ran there: its ONNX record is its own.
    statuses = dict(query(store, "SELECT run_key, status FROM records WHERE path = 'onnx'"))
    assert statuses[onnxscripts[OTHER_ONNXSCRIPT]] == "ok"

    # Resume is per environment: the same command again finds everything stored.
    again = _run(capmap_bin, store, "--no-merge", "--python", second_env)
    assert again.returncode == 0, again.stderr
    assert "0 tasks to run" in again.stderr

    out = tmp_path / "old.json"
    merged = run_capmap(
        capmap_bin, "merge", "--store", store, "--out", out, "--versions", f"onnxscript={OTHER_ONNXSCRIPT}"
    )
    assert merged.returncode == 0, merged.stderr
    header = json.loads(out.read_text())["header"]
    assert header["versions"]["onnxscript"] == OTHER_ONNXSCRIPT
    assert header["run_key"] == onnxscripts[OTHER_ONNXSCRIPT]

    newest = run_capmap(capmap_bin, "merge", "--store", store, "--out", tmp_path / "new.json")
    assert newest.returncode == 0, newest.stderr
    assert "runs of 2 environments; merged the newest" in newest.stderr

    none = run_capmap(capmap_bin, "merge", "--store", store, "--out", out, "--versions", "torch=1.0")
    assert none.returncode == 2
    assert none.stderr.count("\n") == 1 and "no run matches --versions" in none.stderr


def test_interpreters_that_cannot_run_a_worker_get_one_line(capmap_bin: Path, tmp_path: Path) -> None:
    bare = tmp_path / "bare"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(bare)], check=True)
    store = tmp_path / "s.db"
    cases = {
        tmp_path / "missing" / "python": "no such file",
        tmp_path: "is a folder",
        Path("/bin/true"): "is not a Python interpreter",
        bare / "bin" / "python": "has no torch",
    }
    for interpreter, expected in cases.items():
        done = _run(capmap_bin, store, "--python", interpreter)
        assert done.returncode == 2, (interpreter, done.stderr)
        assert done.stderr.count("\n") == 1, done.stderr
        assert str(interpreter) in done.stderr and expected in done.stderr, done.stderr
    assert not store.exists()  # refused before the store was touched


def test_make_env_refuses_what_it_cannot_build(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "notes.txt").write_text("mine\n")
    for args, expected in (
        ([str(tmp_path / "e"), "kornia"], "name no torch"),
        ([str(plain), "torch==2.13.0"], "not a virtual environment"),
    ):
        done = subprocess.run(
            [sys.executable, "-m", "capmap.make_env", *args],
            capture_output=True,
            text=True,
            env=python_env(),
            check=False,
        )
        assert done.returncode == 2 and expected in done.stderr, done.stderr
    assert (plain / "notes.txt").read_text() == "mine\n"

"""Every capture path writes repro scripts: the opt-in paths (export-dynamic, onnx-dynamic, aoti)
reproduce their failures as the default paths do, and a path added from outside capmap (a module
named in CAPMAP_PATH_MODULES) runs, merges, renders and reproduces with no other change."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from capmap.probes import catalog
from capmap.probes.path import CapturePath
from capmap_testing import PYTHON_DIR, python_env, records, run_capmap

REGISTRY = Path(__file__).resolve().parent / "registries" / "repro_path_cases.py"

# A real capture path kept outside capmap: torch.fx's symbolic trace of the case.
FX_PATH = r'''
"""torch.fx.symbolic_trace of the case, run and compared with eager."""

from typing import Any

import torch
import torch.fx

from capmap.compare import compare
from capmap.probes.path import CapturePath, ReproSpec, ReproSteps

PATH = CapturePath(
    name="fx",
    label="torch.fx",
    short="fx",
    order=40,
    description="torch.fx.symbolic_trace of the case, run and compared with eager",
    statuses={"ok": "ok", "ok-unverified": "ok-unverified", "fail": "fail", "mismatch": "mismatch"},
)


def traceable(call: Any, count: int) -> Any:
    """`call` as a function of `count` named arguments: fx cannot trace through *args."""
    names = ", ".join(f"a{i}" for i in range(count))
    scope = {"call": call}
    exec(f"def case({names}):\n    return call({names})", scope)
    return scope["case"]


def probe(ctx: Any) -> dict[str, Any]:
    try:
        graph = torch.fx.symbolic_trace(traceable(ctx.call, len(ctx.fresh_inputs())))
    except Exception as exc:
        return {"status": "fail", **ctx.error_fields(exc)}
    with torch.no_grad():
        out = graph(*ctx.fresh_inputs())
    result = compare(ctx.reference, ctx.output_tensors(out), **ctx.compare_kwargs())
    if not result.agrees:
        return {"status": "mismatch", "message": result.detail}
    return {"status": "ok" if ctx.case.check else "ok-unverified"}


def repro_steps(spec: ReproSpec) -> ReproSteps:
    return ReproSteps(
        imports=("import torch.fx",),
        body=(
            "    names = ', '.join(f'a{i}' for i in range(len(fresh_inputs())))",
            "    scope = {'call': call}",
            "    exec(f'def case({names}):\\n    return call({names})', scope)  # fx cannot trace *args",
            "    try:",
            "        graph = torch.fx.symbolic_trace(scope['case'])",
            "    except Exception as exc:",
            '        return failed("fail", exc)',
            "    with torch.no_grad():",
            "        out = graph(*fresh_inputs())",
            "    return verdict(reference, output_tensors(out))",
        ),
    )
'''


def test_every_capture_path_declares_what_the_engine_and_repro_read() -> None:
    for path in catalog.paths():
        assert isinstance(path, CapturePath)
        assert path.statuses and all(isinstance(v, str) for v in path.statuses.values()), path.name
        assert all(isinstance(p, str) and p for p in path.packages), path.name
        assert all(isinstance(k, str) for k in path.settings), path.name
        if path.reference:
            continue
        assert callable(getattr(catalog.module(path.name), "repro_steps", None)), (
            f"capture path {path.name!r} writes no repro script (no repro_steps)"
        )
    # One place for each default: the run key's settings and packages come from the paths.
    assert catalog.default_settings() == {"opset": 18, "export_strict": False}
    assert catalog.versioned_packages() == ["torch", "onnx", "onnxruntime", "onnxscript", "executorch"]


@pytest.fixture(scope="module")
def opt_in_survey(capmap_bin: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("repro-paths")
    registry = folder / REGISTRY.name
    shutil.copy(REGISTRY, registry)
    store = folder / "results.db"
    paths = "export-dynamic,onnx-dynamic,aoti"
    done = run_capmap(
        capmap_bin, "run", registry, "--store", store, "--paths", paths, timeout=1200, cwd=folder
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return store


def test_the_opt_in_paths_failures_reproduce(capmap_bin: Path, opt_in_survey: Path) -> None:
    found = {k: r["status"] for k, r in records(opt_in_survey).items()}
    assert found[("branch_on_value", "export-dynamic")] == "fail"
    assert found[("branch_on_value", "onnx-dynamic")] == "export-fail"
    assert found[("branch_on_value", "aoti")] == "export-fail"
    assert found[("rows_of_two", "export-dynamic")] == "specialized"
    assert found[("plain", "aoti")] == "ok"
    check = run_capmap(capmap_bin, "repro", "--check", "--store", opt_in_survey, timeout=1200)
    assert check.returncode == 0, check.stdout + check.stderr
    reproduced = [line for line in check.stdout.splitlines() if line.startswith("reproduced")]
    failing = [k for k, s in found.items() if k[1] != "eager" and s not in ("ok", "ok-unverified")]
    assert len(reproduced) == len(failing) >= 5, check.stdout


def test_repro_writes_an_aoti_script(capmap_bin: Path, opt_in_survey: Path, tmp_path: Path) -> None:
    script = tmp_path / "branch.py"
    done = run_capmap(
        capmap_bin, "repro", "branch_on_value", "--path", "aoti", "--store", opt_in_survey, "-o", script
    )
    assert done.returncode == 0, done.stderr
    text = script.read_text()
    assert "aoti_compile_and_package" in text and "torch.export.export(" in text
    unknown = run_capmap(capmap_bin, "repro", "branch_on_value", "--path", "tflite", "--store", opt_in_survey)
    assert unknown.returncode == 2 and "not a capture path of this run" in unknown.stderr


def plugin_env(tmp_path: Path, module: str, text: str) -> dict[str, str]:
    """The environment of a run whose workers also load the path module `module` (its `text`)."""
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    (plugins / f"{module}.py").write_text(text)
    return python_env(CAPMAP_PATH_MODULES=module, PYTHONPATH=f"{plugins}:{PYTHON_DIR}")


def test_a_path_from_outside_capmap_runs_merges_renders_and_reproduces(
    capmap_bin: Path, tmp_path: Path
) -> None:
    env = plugin_env(tmp_path, "capmap_fx_path", FX_PATH)
    registry = tmp_path / "cases.py"
    shutil.copy(REGISTRY, registry)

    def capmap(*args: object) -> str:
        argv = [str(capmap_bin), *map(str, args)]
        done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=600, cwd=tmp_path)
        assert done.returncode == 0, done.stderr[-3000:]
        return done.stdout

    assert "fx" in capmap("list", "--paths")
    store = tmp_path / "out" / "results.db"
    capmap("run", registry, "--store", store, "--paths", "eager,fx")
    snapshot = json.loads((tmp_path / "out" / "snapshot.json").read_text())
    cells = {(c["name"], p): r for c in snapshot["cases"] for p, r in c["paths"].items()}
    assert cells[("plain", "fx")]["status"] == "ok"
    assert cells[("branch_on_value", "fx")]["status"] == "fail"
    assert "control flow" in cells[("branch_on_value", "fx")]["message"]
    page = tmp_path / "page.html"
    capmap("render", tmp_path / "out" / "snapshot.json", "--html", page)
    assert "torch.fx" in page.read_text()
    script = tmp_path / "fx_repro.py"
    capmap("repro", "branch_on_value", "--path", "fx", "--store", store, "-o", script)
    assert "torch.fx.symbolic_trace" in script.read_text()
    checked = capmap("repro", "--check", "--store", store)
    assert "reproduced" in checked and "NOT reproduced" not in checked, checked


# A path that needs a package no environment here has: announced as unavailable, refused by run.
NEEDY_PATH = """
from capmap.probes.path import CapturePath

PATH = CapturePath(
    name="needy",
    label="Needy",
    short="needy",
    order=41,
    description="needs a package this environment lacks",
    statuses={"ok": "ok"},
    packages=("capmap-test-absent-package",),
    extra="needy",
)


def probe(ctx):
    raise AssertionError("a path whose packages are missing never runs")
"""


def test_a_path_whose_packages_are_missing_is_refused_before_any_work(
    capmap_bin: Path, tmp_path: Path
) -> None:
    env = plugin_env(tmp_path, "capmap_needy_path", NEEDY_PATH)
    store = tmp_path / "results.db"
    argv = [str(capmap_bin), "run", str(REGISTRY), "--paths", "eager,needy", "--store", str(store)]
    done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=300, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    (line,) = [x for x in done.stderr.splitlines() if x.startswith("capmap:")]
    assert "the needy path needs capmap-test-absent-package" in line
    assert "pip install 'capmap[needy]'" in line
    assert not store.exists()
    # The other paths still run in that environment.
    argv = [str(capmap_bin), "run", str(REGISTRY), "--paths", "eager", "--store", str(store)]
    done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]

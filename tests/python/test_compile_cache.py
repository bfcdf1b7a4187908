"""One compile cache per worker: a graph one child compiled is a cache hit in every later child.

A long-lived process finds the kernels of an earlier case in its cache folder; so must a run's
children, whichever child compiled them and whatever the operator is called.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from capmap_testing import python_env, records

# Two operators with different names and one body: dynamo hands inductor the same graph.
SAME_GRAPH_REGISTRY = """\
import torch
from capmap import case

def scale_then_shift(x):
    return torch.sin(x) * 3.0 + 1.0

def other_name_same_graph(x):
    return torch.sin(x) * 3.0 + 1.0

case('scale_then_shift', 'cache.first', scale_then_shift, [torch.linspace(0, 1, 24).reshape(2, 12)])
case('other_name_same_graph', 'cache.second', other_name_same_graph,
     [torch.linspace(0, 1, 24).reshape(2, 12)])
"""


def test_a_graph_compiled_by_one_child_is_a_cache_hit_in_the_next(capmap_bin: Path, tmp_path: Path) -> None:
    registry = tmp_path / "same_graph.py"
    registry.write_text(SAME_GRAPH_REGISTRY)
    store = tmp_path / "results.db"
    env = python_env(TMPDIR=str(tmp_path))  # a cold cache slot of this test's own
    env.pop("TORCHINDUCTOR_CACHE_DIR", None)
    run = subprocess.run(
        [str(capmap_bin), "run", str(registry), "--store", str(store), "--no-merge"]
        + ["--paths", "eager,compile", "--jobs", "1", "--fresh-children"],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        check=False,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    stored = records(store)
    first, second = stored[("scale_then_shift", "compile")], stored[("other_name_same_graph", "compile")]
    assert first["status"] == second["status"] == "ok"
    # Two fresh children, one after the other: the first compiled, the second found its graph.
    assert first["graph_cache_misses"] >= 1 and first["graph_cache_hits"] == 0
    assert second["graph_cache_hits"] >= 1 and second["graph_cache_misses"] == 0
    assert list(tmp_path.glob("capmap-inductor-*/slot-0/fxgraph"))


def _run(
    capmap_bin: Path, registry: Path, store: Path, env: dict[str, str], *extra: str
) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(capmap_bin), "run", str(registry), "--store", str(store), "--no-merge"]
        + ["--paths", "eager,compile", "--jobs", "1", *extra],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        check=False,
    )


def test_a_kept_compile_cache_makes_the_next_run_warm(capmap_bin: Path, tmp_path: Path) -> None:
    """What a CI job does: restore the folder, run with --compile-cache, save the folder."""
    registry = tmp_path / "same_graph.py"
    registry.write_text(SAME_GRAPH_REGISTRY)
    kept = tmp_path / "ci-cache"
    env = python_env()
    env.pop("TORCHINDUCTOR_CACHE_DIR", None)
    env.pop("CAPMAP_COMPILE_CACHE", None)
    # Two jobs on two machines: each its own store and temporary folder, only the kept cache shared.
    for job in ("first", "second"):
        (tmp_path / job).mkdir()
        env["TMPDIR"] = str(tmp_path / job)
        run = _run(
            capmap_bin,
            registry,
            tmp_path / job / "results.db",
            env,
            "--only",
            "scale_then_shift",
            "--compile-cache",
            str(kept),
        )
        assert run.returncode == 0, run.stderr[-2000:]
        assert f"compiler cache in {kept}/torch-" in run.stderr
    first = records(tmp_path / "first" / "results.db")[("scale_then_shift", "compile")]
    second = records(tmp_path / "second" / "results.db")[("scale_then_shift", "compile")]
    assert first["graph_cache_misses"] >= 1 and first["graph_cache_hits"] == 0
    assert second["graph_cache_hits"] >= 1 and second["graph_cache_misses"] == 0
    # One folder per torch and capmap version; nothing went to the temporary folders.
    (folder,) = kept.iterdir()
    assert folder.name.startswith("torch-") and "-capmap-" in folder.name
    # Under it, a folder per CPU and kernel settings (process_control.kernel_key).
    assert list(folder.glob("kernels-*/slot-0/fxgraph"))
    assert not list(tmp_path.glob("*/capmap-inductor-*"))


def test_a_compile_cache_that_is_a_file_is_refused_in_one_line(capmap_bin: Path, tmp_path: Path) -> None:
    registry = tmp_path / "same_graph.py"
    registry.write_text(SAME_GRAPH_REGISTRY)
    not_a_folder = tmp_path / "cache"
    not_a_folder.write_text("x")
    store = tmp_path / "results.db"
    run = _run(capmap_bin, registry, store, python_env(CAPMAP_COMPILE_CACHE=str(not_a_folder)))
    assert run.returncode == 2
    assert run.stderr.strip() == f"capmap: CAPMAP_COMPILE_CACHE {not_a_folder}: exists and is not a folder"
    assert not store.exists()


def test_a_kernel_library_cut_short_in_the_cache_is_rebuilt_not_reported(
    capmap_bin: Path, tmp_path: Path
) -> None:
    """A process killed while it wrote a kernel leaves an empty library in the shared cache; every
    later case that needs that kernel would fail with "file too short". The compile path drops the
    file, compiles again and records that it did, so the cell is the operator's."""
    registry = tmp_path / "same_graph.py"
    registry.write_text(SAME_GRAPH_REGISTRY)
    env = python_env(TMPDIR=str(tmp_path))
    env.pop("TORCHINDUCTOR_CACHE_DIR", None)
    env.pop("CAPMAP_COMPILE_CACHE", None)
    first = _run(capmap_bin, registry, tmp_path / "first.db", env, "--only", "scale_then_shift")
    assert first.returncode == 0, first.stderr[-2000:]
    libraries = list(tmp_path.glob("capmap-inductor-*/slot-0/**/*.main.so"))
    assert libraries, "the compile wrote no kernel library"
    for library in libraries:
        library.write_bytes(b"")
    second = _run(capmap_bin, registry, tmp_path / "second.db", env, "--only", "scale_then_shift")
    assert second.returncode == 0, second.stderr[-2000:]
    record = records(tmp_path / "second.db")[("scale_then_shift", "compile")]
    assert record["status"] == "ok", record.get("message")
    assert record["cache_file_removed"] in {str(p) for p in libraries}

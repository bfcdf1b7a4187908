"""Capture paths as plug-ins: each module of capmap.probes declares its path, the worker announces
them, and the engine takes names, labels, order and statuses from that announcement."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from capmap.probes import catalog
from capmap_testing import EXAMPLE, python_env, run_capmap

DEFAULT = ["eager", "onnx", "export", "compile"]


def test_every_probe_module_with_a_path_is_in_the_catalog_in_page_order() -> None:
    names = catalog.names()
    assert names[0] == "eager"  # the reference, then the page's columns
    assert [n for n in names if n in DEFAULT] == DEFAULT
    assert catalog.default_paths() == DEFAULT
    orders = [p.order for p in catalog.paths()]
    assert orders == sorted(orders)
    for entry in catalog.announce():
        assert set(entry) >= {"name", "label", "short", "order", "statuses", "builds_on", "default"}
        # Every path can be skipped, or stand for an eager failure: run_task writes those.
        assert entry["statuses"]["skipped"] == "n/a" and entry["statuses"]["eager-fail"] == "n/a"


def test_a_path_runs_after_the_paths_it_builds_on() -> None:
    assert catalog.module("onnx").PATH.builds_on == ("export",)
    assert catalog.run_order(["compile", "onnx", "eager", "export"]) == ["eager", "export", "onnx", "compile"]
    # Without its foundation a path runs alone (onnx then traces for itself).
    assert catalog.run_order(["onnx"]) == ["onnx"]
    with pytest.raises(ValueError, match="unknown paths"):
        catalog.run_order(["tflite"])


def test_the_worker_hello_announces_the_paths() -> None:
    command = [sys.executable, "-m", "capmap.worker", "--list", EXAMPLE]
    hello = json.loads(subprocess.check_output(command, text=True, env=python_env(), timeout=600))
    assert [p["name"] for p in hello["paths"]] == catalog.names()
    onnx = next(p for p in hello["paths"] if p["name"] == "onnx")
    assert onnx["label"] == "ONNX" and onnx["statuses"]["ort-run-fail"] == "fail"


def test_list_paths_prints_one_line_per_path(capmap_bin: Path) -> None:
    done = run_capmap(capmap_bin, "list", EXAMPLE, "--paths")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert [line.split()[0] for line in lines] == catalog.names()
    assert "(the reference)" in lines[0] and "[default]" in lines[0]
    onnx = next(line for line in lines if line.startswith("onnx "))
    assert "ONNX:" in onnx and "[builds on export]" in onnx
    as_json = json.loads(run_capmap(capmap_bin, "list", EXAMPLE, "--paths", "--json").stdout)
    assert [p["name"] for p in as_json] == catalog.names()


def test_run_refuses_a_path_no_plug_in_announces(capmap_bin: Path, tmp_path: Path) -> None:
    store = tmp_path / "results.db"
    done = run_capmap(capmap_bin, "run", EXAMPLE, "--paths", "eager,tflite", "--store", store)
    assert done.returncode == 2
    assert f"unknown path 'tflite' (known: {', '.join(catalog.names())})" in done.stderr
    assert not store.exists()  # refused before the store was touched


def test_a_run_takes_path_descriptions_to_snapshot_and_page(capmap_bin: Path, tmp_path: Path) -> None:
    done = run_capmap(
        capmap_bin, "run", EXAMPLE, "--only", "relu", "--paths", "export,eager", "--jobs", "1",
        "--store", tmp_path / "results.db", timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    snapshot = json.loads((tmp_path / "snapshot.json").read_text())
    header = snapshot["header"]
    assert header["paths"] == ["eager", "export"]
    assert set(header["path_info"]) == {"eager", "export"}
    assert header["path_info"]["export"]["label"] == "torch.export"
    assert header["path_info"]["eager"]["reference"] is True
    page = (tmp_path / "page.html").read_text()
    data = json.loads(page.split('id="capmap-data">', 1)[1].split("</script>", 1)[0])
    assert [p["id"] for p in data["paths"]] == ["export"]

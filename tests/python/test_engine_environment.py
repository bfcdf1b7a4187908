"""What a run is keyed by: the library revision from a real git checkout, package versions."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from capmap import environment
from capmap.probes import catalog
from capmap_testing import python_env, records


def git(folder: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(folder), "-c", "user.name=t", "-c", "user.email=t@t", *args],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    repo = tmp_path / "lib"
    (repo / "toylib").mkdir(parents=True)
    (repo / "toylib" / "__init__.py").write_text("__version__ = '1.2.3'\n")
    (repo / ".gitignore").write_text("venv/\n")
    git(repo, "init", "-q")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "first")
    return repo


def test_a_tracked_folder_is_versioned_by_git_describe(checkout: Path) -> None:
    head = git(checkout, "rev-parse", "--short", "HEAD")
    assert environment.git_revision(checkout / "toylib") == head
    (checkout / "toylib" / "__init__.py").write_text("__version__ = '1.2.4'\n")
    assert environment.git_revision(checkout / "toylib") == f"{head}-dirty"


def test_an_ignored_or_untracked_place_has_no_revision(checkout: Path, tmp_path: Path) -> None:
    venv = checkout / "venv" / "site-packages" / "other"
    venv.mkdir(parents=True)
    assert environment.git_revision(venv) is None
    outside = tmp_path / "plain"
    outside.mkdir()
    assert environment.git_revision(outside) is None


def test_library_info_falls_back_to_the_registry_folder(checkout: Path, tmp_path: Path) -> None:
    registry = checkout / "toylib" / "survey.py"
    head = git(checkout, "rev-parse", "--short", "HEAD")
    info = environment.library_info({"name": "capmap_not_installed_lib"}, registry)
    assert info["revision"] == info["version"] == head
    plain = tmp_path / "plain" / "reg.py"
    plain.parent.mkdir()
    info = environment.library_info({}, plain)
    assert info["name"] == "reg" and info["revision"] == "unknown"


def test_an_installed_library_is_versioned_by_its_package() -> None:
    info = environment.library_info({"name": "onnx", "docs_url": "d/{ref}"}, None)
    assert info["version"] == info["revision"] == environment.package_version("onnx")
    assert info["docs_url"] == "d/{ref}"


def test_versions_name_every_keyed_package() -> None:
    """The run key's versions: torch and the packages the capture paths declare, and Python."""
    found = environment.versions(catalog.versioned_packages())
    assert set(found) == {"torch", "onnx", "onnxruntime", "onnxscript", "python"}
    assert found["torch"] and found["python"].count(".") == 2
    assert environment.package_version("capmap_no_such_distribution") is None


# A case that fails on every path when the capture sees torch's CI switches: the variable itself,
# and the two settings torch derives from it at import.
CI_REGISTRY = """\
import os

import torch
import torch._functorch.config as functorch_config
from capmap import case, library

library("ci_probe")
SEEN = [name for name in ("CI",) if name in os.environ]
if functorch_config.error_on_custom_op_aliasing:
    SEEN.append("error_on_custom_op_aliasing")


def clean(x: torch.Tensor) -> torch.Tensor:
    if SEEN or os.environ.get("CI"):
        raise RuntimeError(f"the capture sees {SEEN or ['CI']}")
    return x * 2


case("clean", "env", clean, (torch.ones(3),))
"""


def test_a_run_under_ci_true_captures_without_it(capmap_bin: Path, tmp_path: Path) -> None:
    registry = tmp_path / "ci_probe.py"
    registry.write_text(CI_REGISTRY)
    out = tmp_path / "out"
    done = subprocess.run(
        [str(capmap_bin), "run", str(registry), "--paths", "eager,export,compile", "--jobs", "1",
         "--store", str(out / "results.db"), "--out", str(out)],
        capture_output=True, text=True, timeout=600, check=False, env=python_env(CI="true"),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    found = records(out / "results.db")
    for path in ("eager", "export", "compile"):
        assert found[("clean", path)]["status"] == "ok", found[("clean", path)]
    header = json.loads((out / "snapshot.json").read_text())["header"]
    assert header["machine"]["withheld"] == ["CI"]
    assert "CI withheld" in (out / "page.html").read_text()


def test_withholding_removes_only_torch_s_ci_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setattr(environment, "_withheld", [])
    assert environment.withhold_ci_variables() == ["CI"]
    assert "CI" not in os.environ and os.environ["GITHUB_ACTIONS"] == "true"
    assert environment.machine()["withheld"] == ["CI"]

"""Fixtures for the Python tests; the helpers themselves live in capmap_testing.

The expensive facts are computed once per run and shared by every test that reads them (the
whole Kornia registry's eager pass, say): a test that reads a shared fixture checks what it
would check had it made the fact itself.
"""

import getpass
import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from capmap import registry
from capmap.tracing import file_trace
from capmap.worker.process_control import keyed_cache_folder
from capmap_testing import (
    REPO,
    RegistryDigests,
    capmap_bin,
    fault_registry,
    python_env,
    registry_digests,
    run_capmap,
    worker_factory,
)
from user_install import user_survey, venv, wheel

__all__ = ["capmap_bin", "fault_registry", "user_survey", "venv", "wheel", "worker_factory"]

KORNIA = "capmap.registries.kornia"


def pytest_configure() -> None:
    # Tests that compile in this process use torch's folder as a worker would: keyed by the CPU
    # settings, so kernels a run under ATEN_CPU_CAPABILITY=avx2 left are never loaded without it.
    # scripts/test.sh points the temporary folder at one of the run's own, so the kernels of
    # earlier runs are never seen at all.
    chosen = os.environ.get("TORCHINDUCTOR_CACHE_DIR") or os.path.join(
        tempfile.gettempdir(), f"torchinductor_{getpass.getuser()}"
    )
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = keyed_cache_folder(chosen)


@pytest.fixture(scope="module", autouse=True)
def process_state_of_its_own() -> Iterator[None]:
    """Each module starts from the state a fresh process has: a registry loaded in this process
    names the library its cases are attributed to, and without this a module's verdict would
    depend on which modules pytest-xdist ran before it on the same worker. A module's tests run
    in their file's order on one worker (tests/conftest.py), so within it the state flows as in
    a run of the module alone. Runs before the module's own fixtures (autouse comes first)."""
    registry.forget_loaded()
    file_trace.share_code_hashes(None)
    yield


@pytest.fixture(scope="session")
def kornia_eager_store(capmap_bin: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The store of the whole bundled Kornia registry run eagerly by the real binary, split
    across two workers: every case's eager record."""
    store = tmp_path_factory.mktemp("kornia_eager") / "eager.db"
    done = run_capmap(
        capmap_bin, "run", KORNIA, "--all", "--paths", "eager", "--jobs", "2", "--timeout", "120",
        "--store", store, "--no-merge", timeout=3600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    return store


@pytest.fixture(scope="session")
def kornia_digests(tmp_path_factory: pytest.TempPathFactory) -> RegistryDigests:
    out = tmp_path_factory.mktemp("kornia_digests")
    snapshot = json.loads((REPO / "surveys" / "kornia" / "snapshot.json").read_text())
    published = out / "published.json"
    published.write_text(json.dumps({c["name"]: c["inputs"] for c in snapshot["cases"]}))
    done, recipes, values = registry_digests(KORNIA, out, python_env(), against=published)
    return RegistryDigests(done, recipes, values, published_cases=len(snapshot["cases"]))

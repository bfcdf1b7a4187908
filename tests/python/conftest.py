"""Fixtures for the Python tests; the helpers themselves live in capmap_testing."""

import getpass
import os
import tempfile

from capmap.worker.process_control import keyed_cache_folder
from capmap_testing import capmap_bin, fault_registry, worker_factory

__all__ = ["capmap_bin", "fault_registry", "worker_factory"]


def pytest_configure() -> None:
    # Tests that compile in this process use torch's folder as a worker would: keyed by the CPU
    # settings, so kernels a run under ATEN_CPU_CAPABILITY=avx2 left are never loaded without it.
    chosen = os.environ.get("TORCHINDUCTOR_CACHE_DIR") or os.path.join(
        tempfile.gettempdir(), f"torchinductor_{getpass.getuser()}"
    )
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = keyed_cache_folder(chosen)

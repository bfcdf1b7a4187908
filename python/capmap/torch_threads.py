"""One thread for torch in a process that forks: set before torch is first imported."""

from __future__ import annotations

import os

THREAD_ENV_VARS = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "CAPMAP_THREADS")


def cap_threads_before_torch() -> None:
    """One thread everywhere before torch loads: no OpenMP pool may exist when we fork."""
    for var in THREAD_ENV_VARS:
        os.environ[var] = "1"
    os.environ["TORCHINDUCTOR_COMPILE_THREADS"] = "1"
    import torch

    torch.set_num_threads(1)
    torch.set_num_interop_threads(1)

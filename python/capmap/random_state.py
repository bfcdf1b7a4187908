"""The random state each capture path of a task starts from.

A case that draws random numbers when called (a random augmentation, RANSAC, `So3.random`) would
otherwise see whatever the registries' imports and any earlier task of a kept child left in the
global generators, so its cell could change with the registry's layout or the order of tasks,
and a repro script could not draw the same numbers. Each path, the eager reference included,
starts from the same seeded state instead; repro scripts seed the same way (`SEED_LINES`).
"""

from __future__ import annotations

import random
import sys

SEED = 0

# What a repro script runs where a task seeds (numpy is imported by every repro script).
SEED_LINES = (f"random.seed({SEED})", f"np.random.seed({SEED})", f"torch.manual_seed({SEED})")


def start_random_state() -> None:
    """Seeds Python's, NumPy's (when imported) and torch's global generators."""
    import torch

    random.seed(SEED)
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        numpy.random.seed(SEED)
    torch.manual_seed(SEED)

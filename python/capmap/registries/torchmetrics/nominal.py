"""torchmetrics.functional nominal (categorical association) metrics."""

from __future__ import annotations

import torch
import torchmetrics.functional as tmf

from capmap import case
from capmap.registries.torchmetrics._inputs import categories

for name in ("cramers_v", "pearsons_contingency_coefficient", "theils_u", "tschuprows_t"):
    case(name, "nominal", getattr(tmf, name), categories())
    case(f"{name}_matrix", "nominal", getattr(tmf, f"{name}_matrix"), categories(columns=3))
_g = torch.Generator().manual_seed(14)
# Ratings of 10 subjects by 5 raters into 3 categories, as per-category counts.
_counts = torch.nn.functional.one_hot(torch.randint(0, 3, (10, 5), generator=_g), 3).sum(1)
case("fleiss_kappa", "nominal", tmf.fleiss_kappa, [_counts], {"mode": "counts"})

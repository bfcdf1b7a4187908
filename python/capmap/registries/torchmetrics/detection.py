"""torchmetrics.functional.detection: panoptic quality of (category, instance) maps."""

from __future__ import annotations

import torch
import torchmetrics.functional.detection as tmd

from capmap import case

_g = torch.Generator().manual_seed(17)
_cat = torch.randint(0, 3, (1, 8, 8, 1), generator=_g)
_preds = torch.cat([_cat, torch.randint(0, 2, (1, 8, 8, 1), generator=_g)], -1)
_target = torch.cat([_cat, torch.randint(0, 2, (1, 8, 8, 1), generator=_g)], -1)
for name in ("panoptic_quality", "modified_panoptic_quality"):
    case(name, "detection", getattr(tmd, name), [_preds, _target], {"things": {0, 1}, "stuffs": {2}})

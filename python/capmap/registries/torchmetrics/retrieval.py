"""torchmetrics.functional.retrieval: ranking metrics of one query."""

from __future__ import annotations

import torchmetrics.functional.retrieval as tmr

from capmap import case
from capmap.registries.torchmetrics._inputs import retrieval

for name in tmr.__all__:
    kwargs = {"min_precision": 0.3} if name == "retrieval_recall_at_fixed_precision" else {}
    tags = ("quick",) if name == "retrieval_normalized_dcg" else ()
    case(name, "retrieval", getattr(tmr, name), retrieval(), kwargs, tags=tags)

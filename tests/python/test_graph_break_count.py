"""The compile path counts each graph break once: one source line where the trace stopped.

dynamo reports one break several times: again for every trace it restarts, once more for every
frame the break passes through (the caller breaks at the call, the callee at the line), and a
jump on a tensor's value both as "Data-dependent branching" and as "generic_jump TensorVariable()".
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import torch
from capmap.cases import Case
from capmap.probes import run_task

pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning", "ignore::DeprecationWarning")


def _positive_or_zero(x: torch.Tensor) -> torch.Tensor:
    if x.sum() > 0:  # a jump inside an inlined helper
        return x
    return torch.zeros_like(x)


def jumps_and_a_dynamic_shape(x: torch.Tensor) -> torch.Tensor:
    y = x.abs() + 0.1
    kept = torch.unique(y)  # an output shape that depends on the data
    if kept.numel() > 3:  # a jump in the function itself
        y = y * 2
    return _positive_or_zero(y).sum() + kept.sum()


def _compile_record(case: Case) -> dict[str, Any]:
    messages: list[dict[str, Any]] = []
    run_task(case, ["eager", "compile"], {}, messages.append)
    return next(m["record"] for m in messages if m["type"] == "record" and m["path"] == "compile")


def _line(marker: str) -> int:
    lines = Path(__file__).read_text().splitlines()
    return next(i for i, text in enumerate(lines, 1) if marker in text)


def test_each_break_counts_once_and_agrees_with_dynamo_explain() -> None:
    import torch._dynamo

    x = torch.randn(16)
    torch._dynamo.reset()
    explained = torch._dynamo.explain(jumps_and_a_dynamic_shape)(x.clone())
    torch._dynamo.reset()
    record = _compile_record(Case("jumps", "breaks", jumps_and_a_dynamic_shape, [x]))
    assert record["status"] == "ok-breaks"
    # Two lines stop the trace (dynamo's own records of them number five or more).
    assert record["graph_breaks"] == 2
    assert record["graph_count"] == explained.graph_count
    reasons = record["break_reasons"]
    # Every reason is dynamo's explanation with its id, none the bare "generic_jump" abbreviation.
    assert not any(r["reason"].startswith("generic_jump") for r in reasons), reasons
    assert all(r["gb_id"] for r in reasons), reasons
    assert record["distinct_breaks"] == len(reasons) == 2
    wheres = sorted(r.get("where", "") for r in reasons)
    here = Path(__file__).name
    assert wheres == sorted(
        [
            f"{here}:{_line('# an output shape that depends')} in jumps_and_a_dynamic_shape",
            f"{here}:{_line('# a jump inside an inlined helper')} in _positive_or_zero",
        ]
    ), wheres

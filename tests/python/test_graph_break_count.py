"""The compile path counts graph breaks as torch._dynamo.explain does, and names each once.

The count is explain's (graphs - 1), or the source lines where the trace stopped plus the
frames dynamo gave up on when those are more. The reasons name each line once.

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
from capmap.probes.task import run_task

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
    # Two lines stop the trace (dynamo's own records of them number five or more); the count is
    # explain's, graphs - 1, as the graphs around them number more than three.
    assert record["graph_count"] == explained.graph_count
    assert record["graph_breaks"] == explained.graph_break_count >= 2
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


class _CastAfterBreak(torch.nn.Module):
    def __init__(self, dtype: torch.dtype) -> None:
        super().__init__()
        self.dtype = dtype

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.sin(x) * 2
        torch._dynamo.graph_break()
        return y.cos().to(self.dtype)


class _LoopOfCasts(torch.nn.Module):
    """A break in a loop makes dynamo skip the whole frame, with one break site recorded; each
    step then compiles on its own and recompiles for the next dtype, all within one call."""

    def __init__(self) -> None:
        super().__init__()
        dtypes = (torch.float64, torch.float16, torch.float32)
        self.steps = torch.nn.ModuleList(_CastAfterBreak(d) for d in dtypes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for step in self.steps:
            x = step(x)
            print(end="")  # a break inside the loop
        return x


def test_graphs_split_by_a_skipped_frame_count_as_explain_counts_them() -> None:
    import torch._dynamo

    x = torch.rand(8)
    torch._dynamo.reset()
    explained = torch._dynamo.explain(_LoopOfCasts())(x.clone())
    torch._dynamo.reset()
    record = _compile_record(Case("loop", "breaks", _LoopOfCasts(), [x]))
    assert record["status"] == "ok-breaks"
    # Counting break sites and skipped frames alone gives 2; the call compiles 6 graphs.
    assert record["graph_count"] == explained.graph_count > 3
    assert record["graph_breaks"] == explained.graph_break_count
    assert record["break_reasons"], record

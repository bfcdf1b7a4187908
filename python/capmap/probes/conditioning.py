"""Whether a mismatch says more than eager's own rounding: the case called once more in float64.

A capture that differs from eager by 0.022 looks like a wrong lowering, unless eager float32
itself differs from the float64 result by as much: then any float32 program that orders its
operations otherwise (a fused kernel, ONNX Runtime's reductions) may land as far away, and the
comparison cannot tell a wrong capture from rounding (a 3-D DenseNet whose last instance norm
spans 2 voxels: eager float32 against float64 differs by 0.023). Only a mismatch of values pays
for this check, once per task (`ProbeContext.float64`), however many paths mismatch.

The float64 run is a deep copy of the case (target, inputs and bound keyword arguments copied
together) with its floating tensors and the floating parameters and buffers of its networks cast
to float64, called the way every path calls it (through the capture wrapper when the task uses
one). It runs only when every floating tensor it can see is float32; anything it cannot cast (a
tensor held by a function or an opaque object) stays float32, which can only make eager look
steadier than it is, so the check errs towards calling a mismatch a mismatch.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, TypeVar

import torch

from capmap.capture import flat_case
from capmap.compare import difference_of_output, failed_output
from capmap.probes.case_calls import FlatCalls, PlainCalls
from capmap.probes.context import ProbeContext
from capmap.probes.process_plumbing import Stopwatch, captured_output
from capmap.random_state import start_random_state

# What the record's message gains, and what the cause rule `mismatch-ill-conditioned` matches.
ILL_CONDITIONED = "ill-conditioned on these inputs"
# A capture within this factor of eager's own float32-against-float64 difference is within what
# another float32 program may differ by (eager's error one way, the capture's the other).
FACTOR = 2.0
_MAX_DEPTH = 16
T = TypeVar("T")


@dataclass
class Float64Run:
    """The case's outputs computed in float64 (`outputs`), or why there are none (`skipped`)."""

    outputs: list[torch.Tensor] = field(default_factory=list)
    skipped: str | None = None
    seconds: float = 0.0


def judge(ctx: ProbeContext, record: dict[str, Any]) -> None:
    """Adds to a `mismatch` record of values how far eager float32 itself lies from float64 on
    the output that failed (`eager_float64_diff`), and, when the capture's largest difference is
    within `FACTOR` of it, says the case is ill-conditioned on these inputs (`ill_conditioned`,
    and the message). Other mismatches (a count, a shape, NaN), and a dynamic path's (compared
    at other sizes, "at batch ×2: ..."), are left as they are."""
    if record.get("status") != "mismatch" or record.get("check_failed") != "values":
        return
    output = failed_output(str(record.get("message", "")))
    captured = record.get("max_abs_diff")
    if output is None or not isinstance(captured, float):
        return
    run = float64_run(ctx)
    record["eager_float64_seconds"] = round(run.seconds, 4)
    if run.skipped is not None:
        record["eager_float64_skipped"] = run.skipped
        return
    if output >= len(run.outputs) or output >= len(ctx.reference):
        return
    own = difference_of_output(ctx.reference[output], run.outputs[output])
    if own is None:
        record["eager_float64_skipped"] = "the float64 result has another shape or NaN elsewhere"
        return
    record["eager_float64_diff"] = own
    if own > 0.0 and captured <= FACTOR * own:
        record["ill_conditioned"] = True
        record["message"] = (
            f"{record.get('message', '')}\n{ILL_CONDITIONED}: eager float32 already differs from "
            f"eager float64 by {own:.3g} (the capture from eager float32 by {captured:.3g}), so the "
            "comparison cannot tell a wrong capture from rounding"
        )


def float64_run(ctx: ProbeContext) -> Float64Run:
    """The task's float64 run, made by the first path that asks for it."""
    if ctx.float64 is None:
        watch = Stopwatch()
        try:
            run = _run(ctx)
        except Exception as exc:  # noqa: BLE001 - a check that cannot run leaves the record as it was
            run = Float64Run(skipped=f"the float64 run could not be set up ({type(exc).__name__})")
        run.seconds = watch.seconds()
        ctx.float64 = run
    cached: Float64Run = ctx.float64
    return cached


def _run(ctx: ProbeContext) -> Float64Run:
    try:
        twin = copy.deepcopy(ctx.case)
    except Exception as exc:  # noqa: BLE001 - an object that cannot be copied is not cast
        return Float64Run(skipped=f"the case cannot be copied ({type(exc).__name__})")
    kwarg_tensors = [t for t in _tensors(twin.kwargs) if t.is_floating_point() or t.is_complex()]
    twin.kwargs = _cast(twin.kwargs, 0)  # bound into the callable the wrapper is built around
    if ctx.flat is not None:
        flat = flat_case(twin)
        calls: FlatCalls | PlainCalls = FlatCalls(flat)
        inputs: tuple[Any, ...] = tuple(flat.plan.tensors)
    else:
        calls = PlainCalls(twin)
        inputs = tuple(twin.inputs)
    module = calls.capture_module()
    seen = kwarg_tensors + [t for t in _tensors(inputs) if t.is_floating_point() or t.is_complex()]
    seen += [t for t in _module_state(module, twin) if t.is_floating_point() or t.is_complex()]
    if not seen:
        return Float64Run(skipped="no floating tensor to compute in float64")
    if any(t.dtype != torch.float32 for t in seen):
        return Float64Run(skipped="a floating tensor is not float32")
    _modules_to_float64(module, twin)
    try:
        start_random_state()
        with torch.no_grad(), captured_output({}):
            out = module(*_cast(inputs, 0))
        outputs = [t.detach() for t in calls.captured_tensors(out)]
    except Exception as exc:  # noqa: BLE001 - an operator that needs float32 gives no figure
        return Float64Run(skipped=f"the case fails in float64 ({type(exc).__name__})")
    if len(outputs) != len(ctx.reference):
        return Float64Run(skipped="the float64 result has another number of outputs")
    return Float64Run(outputs=outputs)


def _found(value: Any, kind: type[T], depth: int = 0) -> list[T]:
    """The `kind` objects in `value`'s containers (a library object's own are the wrapper's to open)."""
    if depth > _MAX_DEPTH:
        return []
    if isinstance(value, kind):
        return [value]
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, (tuple, list)):
        return [found for v in value for found in _found(v, kind, depth + 1)]
    return []


def _tensors(value: Any) -> list[torch.Tensor]:
    return _found(value, torch.Tensor)


def _networks(value: Any) -> list[torch.nn.Module]:
    return _found(value, torch.nn.Module)


def _all_modules(module: torch.nn.Module, twin: Any) -> list[torch.nn.Module]:
    """The capture module (the target and the networks among the inputs registered on it), and
    the modules among the copied inputs and keyword arguments."""
    return [module, *_networks(twin.target), *_networks(twin.inputs), *_networks(twin.kwargs)]


def _module_state(module: torch.nn.Module, twin: Any) -> list[torch.Tensor]:
    found: list[torch.Tensor] = []
    for m in _all_modules(module, twin):
        found += list(m.parameters()) + list(m.buffers())
    return found


def _modules_to_float64(module: torch.nn.Module, twin: Any) -> None:
    for m in _all_modules(module, twin):
        m.to(torch.float64)


def _cast(value: Any, depth: int) -> Any:
    """`value` with its float32 tensors cast to float64, containers rebuilt."""
    if depth > _MAX_DEPTH:
        return value
    if isinstance(value, torch.Tensor):
        return value.detach().to(torch.float64) if value.dtype == torch.float32 else value.detach().clone()
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*(_cast(v, depth + 1) for v in value))
    if isinstance(value, (tuple, list)):
        return type(value)(_cast(v, depth + 1) for v in value)
    if isinstance(value, dict):
        return {k: _cast(v, depth + 1) for k, v in value.items()}
    return value

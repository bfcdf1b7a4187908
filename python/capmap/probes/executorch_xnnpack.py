"""ExecuTorch with the XNNPACK delegate: the export path's program lowered to the edge dialect
with XNNPACK taking what it can, serialised as a `.pte` program, loaded in ExecuTorch's runtime,
run and compared with eager. The record says how much of the program XNNPACK runs: a program
that runs but delegates nothing is a different finding from one that runs fully on XNNPACK.

ExecuTorch is not one of capmap's dependencies: `python -m capmap.make_env
--system-site-packages DIR executorch==1.5.1` makes an environment beside the project's torch
(see docs/environments.md), and `capmap run --python DIR/bin/python --paths executorch` uses it."""

from __future__ import annotations

import math
import operator
import re
import traceback
from collections import Counter
from typing import Any

import torch
from torch.utils import _pytree as pytree

from capmap.compare import compare
from capmap.probes.context import ProbeContext
from capmap.probes.path import CapturePath, ReproSpec, ReproSteps
from capmap.probes.process_plumbing import Stopwatch, captured_output

PATH = CapturePath(
    name="executorch",
    label="ExecuTorch (XNNPACK)",
    short="ExecuTorch",
    order=27,
    description="the export path's program lowered with XNNPACK, run in ExecuTorch's runtime, compared",
    statuses={
        "ok": "ok",
        "ok-unverified": "ok-unverified",
        "export-fail": "fail",
        "edge-fail": "fail",
        "lower-fail": "fail",
        "serialize-fail": "fail",
        "load-fail": "fail",
        "run-fail": "fail",
        "mismatch": "mismatch",
    },
    fields=(
        "delegated_nodes",
        "undelegated_nodes",
        "delegated_subgraphs",
        "undelegated_ops",
        "graph_inputs",
        "pte_kb",
        "lower_seconds",
        "snr_db",
        "stage",
        "stages",
        "shared_trace",
        "figure",
        "input_mutations",
    ),
    builds_on=("export",),
    fail_status="lower-fail",
    settings={"export_strict": False},
    packages=("executorch",),
    # Each ExecuTorch release pins its torch: beside the project's own torch it goes into an
    # environment of its own that sees the project's packages.
    install="python -m capmap.make_env --system-site-packages ENV executorch==1.5.1, then "
    "capmap run --python ENV/bin/python",
    static_export=True,
)

# The stage each failing status names, in the order a program goes through them.
STAGES = {
    "export-fail": "torch.export",
    "edge-fail": "to_edge",
    "lower-fail": "partition and lowering",
    "serialize-fail": "to_executorch",
    "load-fail": "load",
    "run-fail": "run",
}


def prepare() -> None:
    # ExecuTorch's compiler stack and its runtime's kernels, loaded once in the worker instead of
    # in every child; their import-time notices (torchao's optional kernels) go nowhere.
    sink: dict[str, Any] = {}
    with captured_output(sink):
        import executorch.backends.xnnpack.partition.xnnpack_partitioner  # noqa: F401
        import executorch.exir  # noqa: F401
        import executorch.runtime  # noqa: F401


def _lower(program: Any) -> Any:
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import to_edge_transform_and_lower

    return to_edge_transform_and_lower(program, partitioner=[XnnpackPartitioner()])


def lowering_stage(exc: BaseException) -> str:
    """`edge-fail` or `lower-fail`: whether the partitioner or a backend was running when the
    lowering raised (to_edge_transform_and_lower does both in one call)."""
    for frame in traceback.extract_tb(exc.__traceback__):
        name = frame.filename.replace("\\", "/")
        if "/executorch/exir/backend/" in name or "/executorch/backends/" in name:
            return "lower-fail"
    return "edge-fail"


def _op_name(target: Any) -> str:
    name = getattr(target, "__name__", None) or str(target)
    # Edge ops print as "aten.where.self"; their __name__ is the same words.
    return str(name)


def delegation(edge_program: Any) -> dict[str, Any]:
    """The compute nodes XNNPACK runs and those left to ExecuTorch's portable kernels.
    Tuple unpacking (getitem) and the delegate calls themselves compute nothing."""
    from executorch.exir.lowered_backend_module import LoweredBackendModule

    graph_module = edge_program.graph_module
    delegated = 0
    subgraphs = 0
    left: Counter[str] = Counter()
    for node in graph_module.graph.nodes:
        if node.op == "get_attr":
            lowered = getattr(graph_module, str(node.target), None)
            if isinstance(lowered, LoweredBackendModule):
                subgraphs += 1
                delegated += sum(
                    1
                    for inner in lowered.original_module.graph.nodes
                    if inner.op == "call_function" and inner.target is not operator.getitem
                )
        elif node.op == "call_function":
            name = _op_name(node.target)
            if node.target is operator.getitem or name == "executorch_call_delegate":
                continue
            left[name] += 1
    return {
        "delegated_nodes": delegated,
        "undelegated_nodes": sum(left.values()),
        "delegated_subgraphs": subgraphs,
        "undelegated_ops": dict(sorted(left.items(), key=lambda item: (-item[1], item[0]))),
    }


def user_outputs(edge_program: Any) -> int:
    """How many of the program's outputs are the case's own (not inputs it writes into)."""
    specs = edge_program.graph_signature.output_specs
    return sum(1 for spec in specs if getattr(spec.kind, "name", "") == "USER_OUTPUT")


def share_figure(found: dict[str, Any]) -> str:
    """The page's line for the cell: how much of the program XNNPACK runs."""
    delegated, left = int(found["delegated_nodes"]), int(found["undelegated_nodes"])
    total = delegated + left
    if total == 0:
        return "no compute node"
    if delegated == 0:
        return f"XNNPACK runs none of {total} nodes (all portable)"
    percent = 100.0 * delegated / total
    # Never "100 %" for a program with a portable node, never "0 %" for one XNNPACK ran.
    shown = math.floor(percent) if left else 100
    return f"XNNPACK runs {delegated} of {total} nodes ({max(shown, 1)} %)"


def snr_db(reference: list[torch.Tensor], outputs: list[torch.Tensor]) -> float | None:
    """Signal-to-noise ratio of the floating outputs against eager, in dB; None when the outputs
    equal eager's exactly (no noise) or hold no floating value."""
    signal = noise = 0.0
    for e, a in zip(reference, outputs, strict=False):
        if not (e.is_floating_point() and a.is_floating_point()) or e.shape != a.shape:
            continue
        e64, a64 = e.detach().to(torch.float64), a.detach().to(torch.float64)
        keep = torch.isfinite(e64) & torch.isfinite(a64)
        signal += float((e64[keep] ** 2).sum())
        noise += float(((e64[keep] - a64[keep]) ** 2).sum())
    if noise == 0.0 or signal == 0.0:
        return None
    return round(10.0 * math.log10(signal / noise), 1)


def run_program(
    ctx: ProbeContext, buffer: bytes, stages: dict[str, float]
) -> tuple[Any, dict[str, Any] | None]:
    """Loads the serialised program in ExecuTorch's runtime and runs its forward method on the
    case's tensors: the outputs, or the record of the stage that failed."""
    from executorch.extension.pybindings import portable_lib
    from executorch.runtime import Runtime

    # XNNPACK's pool sizes itself by the machine's cores; the task has its own share of them.
    portable_lib._unsafe_reset_threadpool(ctx.threads())
    log: dict[str, Any] = {}
    watch = Stopwatch()
    try:
        with captured_output(log):
            method = Runtime.get().load_program(buffer).load_method("forward")
        if method is None:
            raise RuntimeError("the program has no method 'forward'")
    except Exception as exc:  # noqa: BLE001
        stages["load"] = watch.seconds()
        return None, _runtime_failure(ctx, "load-fail", exc, log)
    stages["load"] = watch.seconds()
    watch = Stopwatch()
    try:
        leaves = pytree.tree_leaves(list(ctx.capture_inputs()))
        with captured_output(log):
            out = method.execute([x.contiguous() if torch.is_tensor(x) else x for x in leaves])
    except Exception as exc:  # noqa: BLE001
        stages["run"] = watch.seconds()
        return None, _runtime_failure(ctx, "run-fail", exc, log)
    stages["run"] = watch.seconds()
    return list(out), None


# The runtime's log lines that say why a call failed ("[op_convolution.cpp:363] Check failed ...");
# not its start-up notices (cpuinfo, thread pool) or its listing of argument types.
_RUNTIME_LINE = re.compile(r"^\[([\w./-]+)\.cpp:\d+\] (.*)$")
_NOTICE_SOURCES = ("cpuinfo_utils", "threadpool")


def runtime_reasons(log_text: str) -> list[str]:
    """What ExecuTorch's runtime logged before a failed load or run: its exception says only
    "method->execute() failed with error 0x12"."""
    reasons = []
    for line in log_text.splitlines():
        found = _RUNTIME_LINE.match(line.strip())
        if found is None or found.group(1).endswith(_NOTICE_SOURCES):
            continue
        text = found.group(2).strip()
        if text and not text.startswith("arg "):
            reasons.append(text)
    return reasons


def _runtime_failure(
    ctx: ProbeContext, status: str, exc: BaseException, log: dict[str, Any]
) -> dict[str, Any]:
    failure = _failed(ctx, status, exc, {})
    reasons = runtime_reasons(str(log.get("log_tail", "")))
    if reasons:
        failure["message"] = "\n".join([*reasons, str(failure.get("message", ""))])
    return failure


def _failed(ctx: ProbeContext, status: str, exc: BaseException, record: dict[str, Any]) -> dict[str, Any]:
    fields = ctx.error_fields(exc)
    if not fields.get("frames"):
        # ExecuTorch raises from its own passes; the line of the library it names in its
        # message ("stack trace: File ...kornia/x.py, line 133") is where the cause lies.
        frames = quoted_frames(str(fields.get("message", "")), ctx)
        if frames:
            fields["frames"] = frames
    return {"status": status, "stage": STAGES[status], **record, **fields}


_QUOTED_FRAME = re.compile(r'File "([^"]+)", line (\d+), in (\S+)')


def quoted_frames(message: str, ctx: ProbeContext) -> list[str]:
    """The library's frames a message quotes from a traceback, outermost first."""
    if ctx.root is None:
        return []
    found: list[str] = []
    for filename, line, function in _QUOTED_FRAME.findall(message):
        if ctx.root.shows(filename):
            frame = ctx.root.format(filename, int(line), function)
            if frame not in found:
                found.append(frame)
    return found


def probe(ctx: ProbeContext) -> dict[str, Any]:
    stages: dict[str, float] = {}
    record: dict[str, Any] = {"shared_trace": "export" in ctx.products, "stages": stages}
    program, error = ctx.static_program(stages)
    if error is not None:
        return _failed(ctx, "export-fail", error, record)
    record["graph_inputs"] = len(program.graph_signature.user_inputs)

    watch = Stopwatch()
    try:
        lowered = _lower(program)
    except Exception as exc:  # noqa: BLE001 - the failure is what this path reports
        record["lower_seconds"] = watch.seconds()
        return _failed(ctx, lowering_stage(exc), exc, record)
    record["lower_seconds"] = watch.seconds()
    found = delegation(lowered.exported_program())
    record.update(found)
    record["figure"] = share_figure(found)

    watch = Stopwatch()
    try:
        buffer = lowered.to_executorch().buffer
    except Exception as exc:  # noqa: BLE001
        stages["to_executorch"] = watch.seconds()
        return _failed(ctx, "serialize-fail", exc, record)
    stages["to_executorch"] = watch.seconds()
    record["pte_kb"] = round(len(buffer) / 1024, 1)

    out, failed = run_program(ctx, buffer, stages)
    if failed is not None:
        return {**record, **failed}
    # The method returns the new values of the inputs the program writes into before its own
    # outputs (the caller's tensors stay as they were): the outputs are the last ones.
    users = user_outputs(lowered.exported_program())
    if len(out) > users:
        record["input_mutations"] = len(out) - users
        out = out[len(out) - users :]
    outputs = ctx.captured_tensors(out)
    record["snr_db"] = snr_db(ctx.reference, outputs)
    result = compare(ctx.reference, outputs, **ctx.compare_kwargs())
    record.update(result.fields())
    if not result.agrees:
        return {"status": "mismatch", **record, "message": result.detail}
    return ctx.agreed(result, record)


def warm() -> None:
    # Pays the edge dialect's and XNNPACK's first lowering and serialisation before the fork. The
    # program is not loaded: the runtime's thread pool would start threads, and the worker forks.
    from capmap.probes.warmup import TinyModule, tiny_input

    sink: dict[str, Any] = {}
    with captured_output(sink):  # torchao's notices about kernels it cannot load go nowhere
        program = torch.export.export(TinyModule().eval(), (tiny_input(),), strict=False)
        _lower(program).to_executorch()


def repro_steps(spec: ReproSpec) -> ReproSteps:
    strict = bool(spec.settings["export_strict"])
    export_call = f"torch.export.export(capture_module().eval(), capture_inputs(), strict={strict})"
    return ReproSteps(
        imports=(
            "import traceback",
            "from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner",
            "from executorch.exir import to_edge_transform_and_lower",
            "from executorch.runtime import Runtime",
            "from torch.utils import _pytree as pytree",
        ),
        body=(
            "    # The executorch path: the exported program lowered with XNNPACK, run in ExecuTorch.",
            "    try:",
            f"        program = {export_call}",
            "    except Exception as exc:",
            '        return failed("export-fail", exc)',
            "    try:",
            "        lowered = to_edge_transform_and_lower(program, partitioner=[XnnpackPartitioner()])",
            "    except Exception as exc:",
            "        # Which stage raised: the partitioner or XNNPACK (lower-fail), else to_edge.",
            "        frames = [f.filename for f in traceback.extract_tb(exc.__traceback__)]",
            '        backend = any("/executorch/exir/backend/" in f for f in frames) or any(',
            '            "/executorch/backends/" in f for f in frames',
            "        )",
            '        return failed("lower-fail" if backend else "edge-fail", exc)',
            "    try:",
            "        buffer = lowered.to_executorch().buffer",
            "    except Exception as exc:",
            '        return failed("serialize-fail", exc)',
            '    print("program bytes:", len(buffer))',
            "    try:",
            '        method = Runtime.get().load_program(buffer).load_method("forward")',
            "    except Exception as exc:",
            '        return failed("load-fail", exc)',
            "    try:",
            "        leaves = pytree.tree_leaves(list(capture_inputs()))",
            "        out = method.execute([x.contiguous() if torch.is_tensor(x) else x for x in leaves])",
            "    except Exception as exc:",
            '        return failed("run-fail", exc)',
            "    # Inputs the program writes into come back first, before its own outputs.",
            "    specs = lowered.exported_program().graph_signature.output_specs",
            '    users = sum(1 for spec in specs if spec.kind.name == "USER_OUTPUT")',
            "    return verdict(reference, captured_tensors(list(out)[len(out) - users :]))",
        ),
    )

"""torch.onnx.export(dynamo=True), then the ONNX checker, then ONNX Runtime, then a comparison."""

from __future__ import annotations

import contextlib
import re
from typing import Any

import torch

from capmap.compare import compare
from capmap.probes.context import ProbeContext, export_kind
from capmap.probes.path import CapturePath, ReproSpec, ReproSteps
from capmap.probes.process_plumbing import Stopwatch

# onnx, onnxruntime and onnxscript are imported where they are used, never at module level: the
# catalog imports every path module, and without those packages (capmap[onnx]) the path is
# announced as unavailable rather than breaking every other path.

PATH = CapturePath(
    name="onnx",
    label="ONNX",
    short="ONNX",
    order=10,
    description="torch.onnx.export(dynamo=True) of the export path's program, checked, run in ONNX Runtime",
    statuses={
        "ok": "ok",
        "ok-unverified": "ok-unverified",
        "export-fail": "fail",
        "checker-fail": "fail",
        "ort-load-fail": "fail",
        "ort-run-fail": "fail",
        "mismatch": "mismatch",
    },
    fields=(
        "op_types",
        "graph_inputs",
        "graph_nodes",
        "outputs_constant",
        "size_kb",
        "stages",
        "strategy",
        "shared_trace",
        "opset",
    ),
    builds_on=("export",),
    fail_status="export-fail",
    default=True,
    settings={"opset": 18},
    packages=("onnx", "onnxruntime", "onnxscript"),
    extra="onnx",
    static_export=True,
)

# The exporter names its capture strategies after classes; the page shows the short form.
_STRATEGIES = {
    "TorchExportNonStrictStrategy": "non-strict",
    "TorchExportStrictStrategy": "strict",
    "TorchExportDraftExportStrategy": "draft-export",
}


def probe(ctx: ProbeContext) -> dict[str, Any]:
    from capmap.probes.onnx_runtime import load_checked, ort_outputs, reuse_torchlib_registry

    reuse_torchlib_registry()

    opset = int(ctx.settings["opset"])
    stages: dict[str, float] = {}
    record: dict[str, Any] = {"opset": opset, "stages": stages}

    # Reusing the export path's program keeps one trace per task; without it the exporter
    # tries its own strategies, exactly as a user's call would.
    shared = ctx.products.get("export")
    model: Any = shared if shared is not None else ctx.capture_module().eval()
    watch = Stopwatch()
    # Without the export path's program, the exporter's own trace runs the library's code. Its
    # first attempt is a non-strict export, the export path's own call by default; its strict
    # fallback is dynamo's, whose code `dynamo_code` collects.
    traced = ctx.library_trace(export_kind(False)) if shared is None else contextlib.nullcontext()
    try:
        with traced:
            program = torch.onnx.export(model, ctx.capture_inputs(), dynamo=True, opset_version=opset)
    except Exception as exc:  # noqa: BLE001 - the failure is what this path reports
        stages["export"] = watch.seconds()
        export_failure = {"status": "export-fail", **record, **ctx.error_fields(exc)}
        if not export_failure.get("frames") and shared is not None:
            export_failure["frames"] = node_frames(ctx, shared, export_failure.get("message", ""))
        return export_failure
    stages["export"] = watch.seconds()
    if shared is not None:
        record["strategy"] = "strict" if ctx.settings.get("export_strict") else "non-strict"
        record["shared_trace"] = True
    else:
        name = getattr(program, "_capture_strategy", None)
        record["strategy"] = _STRATEGIES.get(name, name) if name else "unknown"
        record["shared_trace"] = False

    assert program is not None  # dynamo=True returns a program or raises
    session, failure = load_checked(ctx, program.model_proto, record, stages)
    if failure is not None:
        return failure

    watch = Stopwatch()
    try:
        outputs = ort_outputs(ctx, session, ctx.capture_inputs(), ctx.reference)
    except Exception as exc:  # noqa: BLE001
        stages["ort_run"] = watch.seconds()
        return {"status": "ort-run-fail", **record, **ctx.error_fields(exc)}
    stages["ort_run"] = watch.seconds()

    result = compare(ctx.reference, outputs, **ctx.compare_kwargs())
    record.update(result.fields())
    if not result.agrees:
        return {"status": "mismatch", **record, "message": result.detail}
    return ctx.agreed(result, record)


_FAILED_OP = re.compile(r"op='([\w.:]+)', overload='(\w+)'")
_STACK_FRAME = re.compile(r'File "([^"]+)", line (\d+), in (\S+)')


def node_frames(ctx: ProbeContext, program: Any, message: str) -> list[str]:
    """The library lines that made the graph node a conversion failed on: the exporter raises
    from its own code, but each node of the program keeps the stack that created it."""
    match = _FAILED_OP.search(message)
    if match is None or ctx.root is None:
        return []
    wanted = f"{match.group(1)}.{match.group(2)}"
    for node in program.graph.nodes:
        if node.op != "call_function" or str(node.target) != wanted:
            continue
        stack = node.meta.get("stack_trace") or ""
        found = _STACK_FRAME.findall(stack)
        frames = [ctx.root.format(f, int(line), fn) for f, line, fn in found if ctx.root.shows(f)]
        if frames:
            return frames[-3:]
    return []


def prepare() -> None:
    from capmap.probes.onnx_runtime import reuse_torchlib_registry

    # A worker prepares this path once before it forks its children: they all inherit the registry.
    reuse_torchlib_registry()


def warm() -> None:
    import onnx

    from capmap.probes.onnx_runtime import reuse_torchlib_registry
    from capmap.probes.warmup import TinyModule, tiny_input

    reuse_torchlib_registry()
    program = torch.export.export(TinyModule().eval(), (tiny_input(),), strict=False)
    onnx_program = torch.onnx.export(program, (tiny_input(),), dynamo=True, verbose=False)
    assert onnx_program is not None
    onnx.checker.check_model(onnx_program.model_proto, full_check=True)


# The script's steps after a successful export: checker, ONNX Runtime, comparison. The ONNX
# dynamic path's script runs them too (at each of its sizes).
ORT_REPRO_IMPORTS = ("import onnx", "import onnxruntime", "from torch.utils import _pytree as pytree")
ORT_REPRO_SESSION = (
    "    proto = onnx_program.model_proto",
    "    try:",
    "        onnx.checker.check_model(proto, full_check=True)",
    "    except Exception as exc:",
    '        return failed("checker-fail", exc)',
    "    try:",
    "        options = onnxruntime.SessionOptions()",
    "        options.intra_op_num_threads = 1",
    "        options.inter_op_num_threads = 1",
    "        options.log_severity_level = 3",
    "        session = onnxruntime.InferenceSession(",
    '            proto.SerializeToString(), options, providers=["CPUExecutionProvider"]',
    "        )",
    "    except Exception as exc:",
    '        return failed("ort-load-fail", exc)',
    "",
    "    def ort_run(args):",
    "        # Graph inputs are the tensors among the inputs, in torch's pytree order.",
    "        names = [i.name for i in session.get_inputs()]",
    "        tensors = [x for x in pytree.tree_leaves(list(args)) if isinstance(x, torch.Tensor)]",
    "        if len(names) != len(tensors):",
    "            raise ValueError(",
    '                f"the ONNX graph takes {len(names)} inputs but the case passes "',
    '                f"{len(tensors)} tensors"',
    "            )",
    "        feeds = {n: t.detach().cpu().contiguous().numpy() for n, t in zip(names, tensors)}",
    "        outputs = captured_tensors(list(session.run(None, feeds)))",
    "        # ONNX has no complex tensors: they come back as real tensors with a last dimension of 2.",
    "        for i, (ref, out) in enumerate(zip(reference, outputs)):",
    "            real = out.dtype in (torch.float32, torch.float64) and out.shape[-1:] == (2,)",
    "            if ref.is_complex() and real:",
    "                outputs[i] = torch.view_as_complex(out.contiguous())",
    "        return outputs",
    "",
)


def repro_steps(spec: ReproSpec) -> ReproSteps:
    strict = bool(spec.settings["export_strict"])
    opset = int(spec.settings["opset"])
    if "shared_trace" in spec.record:
        shared = bool(spec.record["shared_trace"])
    else:
        shared = "graph_nodes" in (spec.siblings.get("export") or {})
    if shared:
        model = (
            "    # capmap converts the export path's program (that trace succeeded for this case).",
            f"    model = torch.export.export(capture_module().eval(), capture_inputs(), strict={strict})",
        )
    else:
        model = (
            "    # The export path's trace failed (or did not run): the exporter tries its own strategies.",
            "    model = capture_module().eval()",
        )
    return ReproSteps(
        imports=ORT_REPRO_IMPORTS,
        body=(
            *model,
            "    try:",
            "        onnx_program = torch.onnx.export(",
            f"            model, capture_inputs(), dynamo=True, opset_version={opset}",
            "        )",
            "    except Exception as exc:",
            '        return failed("export-fail", exc)',
            *ORT_REPRO_SESSION,
            "    try:",
            "        outputs = ort_run(capture_inputs())",
            "    except Exception as exc:",
            '        return failed("ort-run-fail", exc)',
            "    return verdict(reference, outputs)",
        ),
    )

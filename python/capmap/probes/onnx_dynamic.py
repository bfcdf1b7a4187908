"""ONNX export of the dynamic-shape program (its dynamic dims become dynamic axes), checked,
loaded in ONNX Runtime, run at the traced sizes and at the other sizes, each compared with eager."""

from __future__ import annotations

from typing import Any

import torch

from capmap.compare import Comparison, compare
from capmap.probes import dynamic_shapes
from capmap.probes.context import ProbeContext
from capmap.probes.onnx import ORT_REPRO_IMPORTS, ORT_REPRO_SESSION
from capmap.probes.onnx import PATH as ONNX_PATH
from capmap.probes.path import CapturePath, ReproSpec, ReproSteps
from capmap.probes.process_plumbing import Stopwatch

PATH = CapturePath(
    name="onnx-dynamic",
    label="ONNX, dynamic shapes",
    short="ONNX dyn",
    order=12,
    description="ONNX of the export-dynamic program, dynamic axes, run in ONNX Runtime at the other sizes",
    statuses={**ONNX_PATH.statuses, "specialized": "specialized"},
    fields=(
        "op_types",
        "size_kb",
        "stages",
        "shared_trace",
        "opset",
        "dynamic_dims",
        "specialized_dims",
        "size_oblivious",
        "sizes_checked",
        "stage",
    ),
    builds_on=("export-dynamic",),
    fail_status="export-fail",
    settings=ONNX_PATH.settings,
    packages=ONNX_PATH.packages,
    extra=ONNX_PATH.extra,
)


def prepare() -> None:
    from capmap.probes.onnx_runtime import reuse_torchlib_registry

    reuse_torchlib_registry()


def probe(ctx: ProbeContext) -> dict[str, Any]:
    from capmap.probes.onnx_runtime import load_checked, ort_outputs, reuse_torchlib_registry

    reuse_torchlib_registry()
    opset = int(ctx.settings["opset"])
    stages: dict[str, float] = {}
    shared = ctx.products.get("export-dynamic")
    found = shared if shared is not None else dynamic_shapes.trace(ctx)
    facts = {k: v for k, v in found.fields().items() if k != "graph_nodes" and k != "export_seconds"}
    record: dict[str, Any] = {"opset": opset, "stages": stages, "shared_trace": shared is not None, **facts}
    stages["trace"] = found.seconds
    if found.error is not None:
        return {"status": "export-fail", **record, **ctx.error_fields(found.error)}
    if found.specialized:
        frames = {"frames": list(found.frames)} if found.frames else {}
        return {"status": "specialized", **record, "message": found.specialized_message(), **frames}

    watch = Stopwatch()
    try:
        program = torch.onnx.export(found.program, ctx.capture_inputs(), dynamo=True, opset_version=opset)
    except Exception as exc:  # noqa: BLE001 - the failure is what this path reports
        stages["export"] = watch.seconds()
        return {"status": "export-fail", **record, **ctx.error_fields(exc)}
    stages["export"] = watch.seconds()
    assert program is not None  # dynamo=True returns a program or raises
    session, failure = load_checked(ctx, program.model_proto, record, stages)
    if failure is not None:
        return failure
    fixed = fixed_axes(program.model_proto, found.dynamic)
    if fixed:
        message = f"specialized: the ONNX graph fixes {', '.join(fixed)} (dynamic in the exported program)"
        return {"status": "specialized", **record, "specialized_dims": fixed, "message": message}

    watch = Stopwatch()
    checked: list[str] = []
    agreed: list[Comparison] = []
    sizes = [("traced", ctx.capture_inputs(), ctx.reference)]
    sizes += [(s.label, s.inputs, s.reference) for s in found.sets if s.reference is not None]
    for label, inputs, reference in sizes:
        try:
            outputs = ort_outputs(ctx, session, inputs, reference)
        except Exception as exc:  # noqa: BLE001
            stages["ort_run"] = watch.seconds()
            record.update(sizes_checked=checked, stage=f"run at {label}")
            failure = ctx.error_fields(exc)
            pinned, guard = dynamic_shapes.refused_at(found, inputs) if label != "traced" else ([], "")
            if pinned:
                return {"status": "specialized", **record, **_pinned_at_run(found, pinned, guard, failure)}
            return {"status": "ort-run-fail", **record, **failure}
        result = compare(reference, outputs, **ctx.compare_kwargs())
        record.update(result.fields())
        if not result.agrees:
            stages["ort_run"] = watch.seconds()
            record["sizes_checked"] = checked
            return {"status": "mismatch", **record, "message": f"at {label}: {result.detail}"}
        agreed.append(result)
        checked.append(dynamic_shapes.size_label(label, inputs))
    stages["ort_run"] = watch.seconds()
    record["sizes_checked"] = checked
    if len(checked) == 1:
        return {"status": "ok-unverified", **record, "message": dynamic_shapes.unchecked_note(found.sets)}
    return ctx.agreed(dynamic_shapes.over_all_sizes(agreed), record)


def _pinned_at_run(
    found: dynamic_shapes.DynamicTrace, pinned: list[str], guard: str, failure: dict[str, Any]
) -> dict[str, Any]:
    """ONNX Runtime fails at a size the exported program's own guard refuses: the trace pinned
    the dim, and the ONNX graph, which keeps no guard, computes with the traced size there."""
    why, frames = found.guards_of(pinned)
    runtime = str(failure.get("message", "")).strip().splitlines()
    message = f"specialized: {', '.join(pinned)}: the program's guard refuses this size ({guard})"
    if why:
        message += f"; {why}"
    if runtime:
        message += f"; ONNX Runtime fails there: {runtime[0]}"
    fields = {**failure, "specialized_dims": pinned, "message": message}
    if frames:
        fields["frames"] = frames
    return fields


def fixed_axes(proto: Any, dynamic: list[str]) -> list[str]:
    """The dims the program keeps dynamic ("input 0 dim 2 (spatial)") that the graph fixes."""
    fixed = []
    graph_inputs = list(proto.graph.input)
    for name in dynamic:
        words = name.split()
        index, dim = int(words[1]), int(words[3])
        if index >= len(graph_inputs):
            continue
        dims = graph_inputs[index].type.tensor_type.shape.dim
        if dim < len(dims) and dims[dim].HasField("dim_value"):
            fixed.append(f"{name} = {dims[dim].dim_value}")
    return fixed


def repro_steps(spec: ReproSpec) -> ReproSteps:
    opset = int(spec.settings["opset"])
    return ReproSteps(
        imports=ORT_REPRO_IMPORTS,
        body=(
            *dynamic_shapes.repro_trace_lines(spec.settings, spec.case),
            "    if found.error is not None:",
            '        return failed("export-fail", found.error)',
            "    if found.specialized:",
            '        return "specialized: " + found.specialized_message()',
            "    try:",
            "        onnx_program = torch.onnx.export(",
            f"            found.program, capture_inputs(), dynamo=True, opset_version={opset}",
            "        )",
            "    except Exception as exc:",
            '        return failed("export-fail", exc)',
            *ORT_REPRO_SESSION,
            "    # capmap's check that the graph kept the program's dynamic dims as dynamic axes.",
            "    from capmap.probes.onnx_dynamic import fixed_axes",
            "",
            "    fixed = fixed_axes(proto, found.dynamic)",
            "    if fixed:",
            '        words = ", ".join(fixed) + " (dynamic in the exported program)"',
            '        return f"specialized: specialized: the ONNX graph fixes {words}"',
            '    sizes = [("traced", capture_inputs(), reference)]',
            "    sizes += [(s.label, s.inputs, s.reference) for s in found.sets if s.reference is not None]",
            "    for label, args, expected in sizes:",
            "        try:",
            "            outputs = ort_run(args)",
            "        except Exception as exc:",
            '            return failed("ort-run-fail", exc)',
            "        result = verdict(expected, outputs)",
            '        if not result.startswith("ok"):',
            '            return result.replace("mismatch: ", f"mismatch: at {label}: ", 1)',
            "    return verdict(reference, ort_run(capture_inputs()))",
        ),
    )

"""ONNX export helpers the ONNX paths share (`onnx`, `onnx-dynamic`): the exporter's registry
built once, the checker and the ONNX Runtime session, the feeds and the outputs. A helper
module: it declares no path."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import torch
from torch.utils import _pytree as pytree

from capmap.compare import flatten
from capmap.probes.context import ProbeContext
from capmap.probes.process_plumbing import Stopwatch

if TYPE_CHECKING:
    import numpy as np

# onnx and onnxruntime are imported where they are used: the catalog imports this module with
# the path modules, also in an environment without them (capmap[onnx] brings them).


def reuse_torchlib_registry() -> None:
    """Builds the exporter's aten→ONNX registry once per opset instead of once per export call.

    torch.onnx.export rebuilds it from onnxscript's sources on every call (seconds each time);
    its content depends only on the opset. Each call still gets its own copy, because a
    custom translation table is registered into it. A worker calls this before forking, so
    every child starts with the registry built.
    """
    try:
        from torch.onnx._internal.exporter import _registration

        registry_class = _registration.ONNXRegistry
        build = registry_class.from_torchlib
        default_opset = _registration._constants.TORCHLIB_OPSET  # type: ignore[attr-defined]
    except (ImportError, AttributeError):
        return  # another torch: the exporter builds its registry itself, only slower
    if getattr(build, "_capmap_cached", False):
        return
    built: dict[Any, Any] = {}

    def from_torchlib(opset_version: Any = default_opset) -> Any:
        if opset_version not in built:
            # Building it warns about every optional library that is missing (torchvision ...),
            # from a worker before any task, where nothing should reach the terminal.
            logger = logging.getLogger(_registration.__name__)
            level = logger.level
            logger.setLevel(logging.ERROR)
            try:
                built[opset_version] = build(opset_version=opset_version)
            finally:
                logger.setLevel(level)
        cached = built[opset_version]
        fresh = registry_class()
        fresh._opset_version = cached._opset_version
        fresh.functions = {target: list(metas) for target, metas in cached.functions.items()}
        return fresh

    from_torchlib._capmap_cached = True  # type: ignore[attr-defined]
    registry_class.from_torchlib = staticmethod(from_torchlib)  # type: ignore[method-assign]
    from_torchlib()


def load_checked(
    ctx: ProbeContext, proto: Any, record: dict[str, Any], stages: dict[str, float]
) -> tuple[Any, dict[str, Any] | None]:
    """Notes the model's operators and size, checks it, loads it in ONNX Runtime: the session,
    or the record of the stage that failed."""
    record["op_types"] = sorted(op_types(proto))
    record["graph_inputs"] = len(proto.graph.input)
    record["graph_nodes"] = len(proto.graph.node)
    if not proto.graph.node:
        # No node computes anything: an output is either a graph input passed through, or a
        # constant baked in at export (the inputs reach the graph but decide nothing).
        inputs = {i.name for i in proto.graph.input}
        if not any(o.name in inputs for o in proto.graph.output):
            record["outputs_constant"] = True
    record["size_kb"] = round(proto.ByteSize() / 1024, 1)
    import onnx

    watch = Stopwatch()
    try:
        onnx.checker.check_model(proto, full_check=True)
    except Exception as exc:  # noqa: BLE001
        stages["checker"] = watch.seconds()
        return None, {"status": "checker-fail", **record, **ctx.error_fields(exc)}
    stages["checker"] = watch.seconds()
    watch = Stopwatch()
    try:
        session = ort_session(ctx, proto)
    except Exception as exc:  # noqa: BLE001
        stages["ort_load"] = watch.seconds()
        return None, {"status": "ort-load-fail", **record, **ctx.error_fields(exc)}
    stages["ort_load"] = watch.seconds()
    return session, None


def ort_session(ctx: ProbeContext, proto: Any) -> Any:
    """An ONNX Runtime session on the CPU with the task's share of threads."""
    # Imported here: onnxruntime starts a thread on import, and a worker forks after importing
    # this module, which must stay single-threaded.
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = ctx.threads()
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    return onnxruntime.InferenceSession(
        proto.SerializeToString(), options, providers=["CPUExecutionProvider"]
    )


def ort_outputs(
    ctx: ProbeContext, session: Any, inputs: tuple[Any, ...], reference: list[torch.Tensor]
) -> list[torch.Tensor]:
    """Runs the session on the case's tensors; its outputs as tensors shaped like `reference`."""
    outputs = session.run(None, _feeds(session, inputs))
    return _as_complex_like(reference, ctx.captured_tensors(list(outputs)))


def op_types(proto: Any) -> set[str]:
    """Op types of the main graph, its subgraphs (If/Loop/Scan bodies) and local functions."""
    found: set[str] = set()

    def walk(nodes: Any) -> None:
        for node in nodes:
            found.add(node.op_type if node.domain in ("", "ai.onnx") else f"{node.domain}::{node.op_type}")
            for attr in node.attribute:
                if attr.HasField("g"):
                    walk(attr.g.node)
                for g in attr.graphs:
                    walk(g.node)

    walk(proto.graph.node)
    local = {(f.domain, f.name) for f in proto.functions}
    for f in proto.functions:
        walk(f.node)
    # Calls to local functions are not operators; their bodies were listed above.
    return {t for t in found if tuple(t.split("::", 1)) not in local and ("", t) not in local}


def _as_complex_like(reference: list[torch.Tensor], outputs: list[torch.Tensor]) -> list[torch.Tensor]:
    """ONNX has no complex tensors: the exporter returns them as real tensors with a last dim of 2."""
    converted = []
    for i, out in enumerate(outputs):
        ref = reference[i] if i < len(reference) else None
        paired = ref is not None and ref.is_complex() and out.dtype in (torch.float32, torch.float64)
        if paired and out.shape[-1:] == (2,):
            out = torch.view_as_complex(out.contiguous())
        converted.append(out)
    return converted


def _feeds(session: Any, inputs: tuple[Any, ...]) -> dict[str, np.ndarray]:
    """Graph inputs are the tensors among the case's inputs, in pytree order; constants are baked in."""
    names = [i.name for i in session.get_inputs()]
    # The exporter flattens inputs with torch's pytree, which also opens registered containers
    # (kornia's geometric types); feed in that order, else in capmap's own flattening order.
    tensors = [x for x in pytree.tree_leaves(list(inputs)) if isinstance(x, torch.Tensor)]
    if len(tensors) != len(names):
        tensors = flatten(list(inputs))
    if len(names) != len(tensors):
        raise ValueError(
            f"the ONNX graph takes {len(names)} inputs but the case passes {len(tensors)} tensors"
        )
    # ONNX has no complex inputs: the exporter takes a complex tensor as its real view (last dim 2).
    return {
        name: (torch.view_as_real(t) if t.is_complex() else t).detach().cpu().contiguous().numpy()
        for name, t in zip(names, tensors, strict=True)
    }

"""torch.export.export: one trace, then the exported program runs and is compared with eager."""

from __future__ import annotations

from typing import Any

import torch

from capmap.compare import compare
from capmap.probes.context import ProbeContext, export_kind
from capmap.probes.path import CapturePath, ReproSpec, ReproSteps
from capmap.probes.process_plumbing import Stopwatch

PATH = CapturePath(
    name="export",
    label="torch.export",
    short="export",
    order=20,
    description="torch.export.export at the traced shapes, then the program runs and is compared",
    statuses={"ok": "ok", "ok-unverified": "ok-unverified", "fail": "fail", "mismatch": "mismatch"},
    fields=("graph_nodes", "graph_inputs", "strict", "export_seconds", "stage"),
    default=True,
    settings={"export_strict": False},
    static_export=True,
)


def probe(ctx: ProbeContext) -> dict[str, Any]:
    strict = bool(ctx.settings["export_strict"])
    record: dict[str, Any] = {"strict": strict}
    module = ctx.capture_module().eval()
    watch = Stopwatch()
    try:
        with ctx.library_trace(export_kind(strict)):
            program = torch.export.export(module, ctx.capture_inputs(), strict=strict)
    except Exception as exc:  # noqa: BLE001 - the failure is what this path reports
        return {"status": "fail", **record, "export_seconds": watch.seconds(), **ctx.error_fields(exc)}
    record["export_seconds"] = watch.seconds()
    record["graph_nodes"] = len(program.graph.nodes)
    record["graph_inputs"] = len(program.graph_signature.user_inputs)
    ctx.products[PATH.name] = program

    # Running the program updates its buffers in place (a call counter, running statistics);
    # the ONNX path converts this same program, as a user's export would before any run.
    state = _ProgramState(program)
    try:
        with torch.no_grad():
            out = program.module()(*ctx.capture_inputs())
    except Exception as exc:  # noqa: BLE001
        return {"status": "fail", **record, "stage": "run", **ctx.error_fields(exc)}
    finally:
        state.restore()
    result = compare(ctx.reference, ctx.captured_tensors(out), **ctx.compare_kwargs())
    record.update(result.fields())
    if not result.agrees:
        return {"status": "mismatch", **record, "message": result.detail}
    return ctx.agreed(result, record)


class _ProgramState:
    """The program's buffers and lifted constants as they were traced. Only a tensor the run
    wrote into (its version counter moved) is put back: most constants are never written, and
    some cannot be (an expanded tensor, an inference-mode tensor)."""

    def __init__(self, program: Any) -> None:
        buffers = set(program.graph_signature.buffers)
        found = [v for k, v in program.state_dict.items() if k in buffers]
        found += list(program.constants.values())
        self.saved: list[tuple[torch.Tensor, int, torch.Tensor]] = []
        for tensor in found:
            if isinstance(tensor, torch.Tensor) and not tensor.is_inference():
                self.saved.append((tensor, tensor._version, tensor.detach().clone()))

    def restore(self) -> None:
        with torch.no_grad():
            for tensor, version, value in self.saved:
                if tensor._version != version:
                    tensor.copy_(value)


def warm() -> None:
    from capmap.probes.warmup import TinyModule, tiny_input

    program = torch.export.export(TinyModule().eval(), (tiny_input(),), strict=False)
    with torch.no_grad():
        program.module()(tiny_input())


def repro_steps(spec: ReproSpec) -> ReproSteps:
    strict = bool(spec.settings["export_strict"])
    export_call = f"torch.export.export(capture_module().eval(), capture_inputs(), strict={strict})"
    return ReproSteps(
        imports=(),
        body=(
            "    # The export path: one trace, then the program runs and is compared with eager.",
            "    try:",
            f"        program = {export_call}",
            "    except Exception as exc:",
            '        return failed("fail", exc)',
            '    print("graph nodes:", len(program.graph.nodes))',
            "    try:",
            "        with torch.no_grad():",
            "            out = program.module()(*capture_inputs())",
            "    except Exception as exc:",
            '        return failed("fail", exc)  # the program does not run',
            "    return verdict(reference, captured_tensors(out))",
        ),
    )

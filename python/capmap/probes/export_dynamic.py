"""torch.export with dynamic shapes: one trace with the dims asked to vary `Dim.AUTO` (the batch,
and height and width where the case lets them vary), then the program runs at the traced sizes
and at two other sizes, each compared with eager there."""

from __future__ import annotations

from typing import Any

import torch

from capmap.compare import Comparison, compare
from capmap.probes import dynamic_shapes
from capmap.probes.context import ProbeContext
from capmap.probes.path import CapturePath, ReproSpec, ReproSteps

PATH = CapturePath(
    name="export-dynamic",
    label="torch.export, dynamic shapes",
    short="export dyn",
    order=22,
    description="torch.export.export with a dynamic batch (and size), run and compared at batch ×2 and ×3",
    statuses={
        "ok": "ok",
        "ok-unverified": "ok-unverified",
        "specialized": "specialized",
        "fail": "fail",
        "mismatch": "mismatch",
    },
    fields=(
        "graph_nodes",
        "strict",
        "export_seconds",
        "dynamic_dims",
        "specialized_dims",
        "size_oblivious",
        "sizes_checked",
        "stage",
    ),
    settings={"export_strict": False},
)


def probe(ctx: ProbeContext) -> dict[str, Any]:
    found = dynamic_shapes.trace(ctx)
    ctx.products[PATH.name] = found
    record: dict[str, Any] = {"strict": bool(ctx.settings["export_strict"]), **found.fields()}
    if found.error is not None:
        return {"status": "fail", **record, **ctx.error_fields(found.error)}
    if found.specialized:
        return {"status": "specialized", **record, "message": found.specialized_message(), **_frames(found)}

    run = found.program.module()
    checked: list[str] = []
    agreed: list[Comparison] = []
    sizes = [("traced", ctx.capture_inputs(), ctx.reference)]
    sizes += [(s.label, s.inputs, s.reference) for s in found.sets if s.reference is not None]
    for label, inputs, reference in sizes:
        try:
            with torch.no_grad():
                out = run(*inputs)
        except Exception as exc:  # noqa: BLE001 - a size the program refuses is its failure
            pinned = dynamic_shapes.guarded_dims(str(exc), found.dynamic)
            if label != "traced" and pinned:
                # A runtime guard kept from the trace refuses the new size: pinned after all.
                record.update(sizes_checked=checked, stage=f"run at {label}", specialized_dims=pinned)
                failure = ctx.error_fields(exc)
                why, frames = found.guards_of(pinned)
                if why:
                    failure["message"] = f"{failure.get('message', '')} ({why})"
                if frames:
                    failure["frames"] = frames
                return {"status": "specialized", **record, **failure}
            return {
                "status": "fail",
                **record,
                "sizes_checked": checked,
                "stage": f"run at {label}",
                **ctx.error_fields(exc),
            }
        result = compare(reference, ctx.captured_tensors(out), **ctx.compare_kwargs())
        record.update(result.fields())
        if not result.agrees:
            return {
                "status": "mismatch",
                **record,
                "sizes_checked": checked,
                "message": f"at {label}: {result.detail}",
            }
        agreed.append(result)
        checked.append(dynamic_shapes.size_label(label, inputs))
    record["sizes_checked"] = checked
    if len(checked) == 1:
        return {"status": "ok-unverified", **record, "message": dynamic_shapes.unchecked_note(found.sets)}
    return ctx.agreed(dynamic_shapes.over_all_sizes(agreed), record)


def _frames(found: dynamic_shapes.DynamicTrace) -> dict[str, Any]:
    """The library lines whose guards pinned a dim, as the record's frames (where a cause points)."""
    return {"frames": list(found.frames)} if found.frames else {}


def repro_steps(spec: ReproSpec) -> ReproSteps:
    return ReproSteps(
        imports=(),
        body=(
            *dynamic_shapes.repro_trace_lines(spec.settings, spec.case),
            "    if found.error is not None:",
            '        return failed("fail", found.error)',
            "    if found.specialized:",
            '        return "specialized: " + found.specialized_message()',
            "    program = found.program.module()",
            '    sizes = [("traced", capture_inputs(), reference)]',
            "    sizes += [(s.label, s.inputs, s.reference) for s in found.sets if s.reference is not None]",
            "    for label, args, expected in sizes:",
            "        try:",
            "            with torch.no_grad():",
            "                out = program(*args)",
            "        except Exception as exc:",
            "            # A guard kept from the trace that refuses a new size pinned the dim after all.",
            '            pinned = label != "traced" and dynamic_shapes.guarded_dims(str(exc), found.dynamic)',
            '            return failed("specialized" if pinned else "fail", exc)',
            "        result = verdict(expected, captured_tensors(out))",
            '        if not result.startswith("ok"):',
            '            return result.replace("mismatch: ", f"mismatch: at {label}: ", 1)',
            "    return verdict(reference, captured_tensors(program(*capture_inputs())))",
        ),
    )

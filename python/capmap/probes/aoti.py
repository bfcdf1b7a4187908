"""AOTInductor: the exported program compiled ahead of time into a package (a shared library and
its weights, loadable without Python's compiler stack), loaded back, run and compared with eager."""

from __future__ import annotations

import os
import shutil
import tempfile
from typing import Any

import torch

from capmap.compare import compare
from capmap.probes.context import ProbeContext
from capmap.probes.path import CapturePath, ReproSpec, ReproSteps
from capmap.probes.process_plumbing import Stopwatch

PATH = CapturePath(
    name="aoti",
    label="AOTInductor",
    short="AOTI",
    order=25,
    description="the export path's program compiled and packaged by AOTInductor, loaded back, run, compared",
    statuses={
        "ok": "ok",
        "ok-unverified": "ok-unverified",
        "export-fail": "fail",
        "compile-fail": "fail",
        "load-fail": "fail",
        "run-fail": "fail",
        "mismatch": "mismatch",
    },
    fields=("compile_seconds", "package_kb", "shared_trace", "stages"),
    builds_on=("export",),
    fail_status="compile-fail",
    settings={"export_strict": False},
    static_export=True,
)


def prepare() -> None:
    # The compiler's modules, loaded once in the worker instead of in every child.
    import torch._inductor  # noqa: F401


def probe(ctx: ProbeContext) -> dict[str, Any]:
    stages: dict[str, float] = {}
    record: dict[str, Any] = {"shared_trace": "export" in ctx.products, "stages": stages}
    program, error = ctx.static_program(stages)
    if error is not None:
        return {"status": "export-fail", **record, **ctx.error_fields(error)}

    folder = tempfile.mkdtemp(prefix="capmap-aoti-")
    try:
        watch = Stopwatch()
        try:
            package = torch._inductor.aoti_compile_and_package(
                program, package_path=os.path.join(folder, "case.pt2")
            )
        except Exception as exc:  # noqa: BLE001 - the failure is what this path reports
            record["compile_seconds"] = watch.seconds()
            return {"status": "compile-fail", **record, **ctx.error_fields(exc)}
        record["compile_seconds"] = watch.seconds()
        record["package_kb"] = round(os.path.getsize(package) / 1024, 1)

        watch = Stopwatch()
        try:
            loaded = torch._inductor.aoti_load_package(package)
        except Exception as exc:  # noqa: BLE001
            stages["load"] = watch.seconds()
            return {"status": "load-fail", **record, **ctx.error_fields(exc)}
        stages["load"] = watch.seconds()

        watch = Stopwatch()
        try:
            with torch.no_grad():
                out = loaded(*ctx.capture_inputs())
        except Exception as exc:  # noqa: BLE001
            stages["run"] = watch.seconds()
            return {"status": "run-fail", **record, **ctx.error_fields(exc)}
        stages["run"] = watch.seconds()
    finally:
        shutil.rmtree(folder, ignore_errors=True)

    result = compare(ctx.reference, ctx.captured_tensors(out), **ctx.compare_kwargs())
    record.update(result.fields())
    if not result.agrees:
        return {"status": "mismatch", **record, "message": result.detail}
    return ctx.agreed(result, record)


def warm() -> None:
    # Pays inductor's and AOTInductor's first compile and package before the fork. The package
    # is not loaded: a loaded kernel library may start threads, and the worker forks after this.
    from capmap.probes.warmup import TinyModule, tiny_input

    program = torch.export.export(TinyModule().eval(), (tiny_input(),), strict=False)
    folder = tempfile.mkdtemp(prefix="capmap-aoti-warm-")
    try:
        torch._inductor.aoti_compile_and_package(program, package_path=os.path.join(folder, "w.pt2"))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def repro_steps(spec: ReproSpec) -> ReproSteps:
    strict = bool(spec.settings["export_strict"])
    export_call = f"torch.export.export(capture_module().eval(), capture_inputs(), strict={strict})"
    return ReproSteps(
        imports=("import os", "import tempfile", "import torch._inductor"),
        body=(
            "    # The aoti path: the exported program compiled and packaged by AOTInductor, loaded, run.",
            "    try:",
            f"        program = {export_call}",
            "    except Exception as exc:",
            '        return failed("export-fail", exc)',
            "    folder = tempfile.mkdtemp(prefix='repro-aoti-')",
            "    try:",
            "        package = torch._inductor.aoti_compile_and_package(",
            '            program, package_path=os.path.join(folder, "case.pt2")',
            "        )",
            "    except Exception as exc:",
            '        return failed("compile-fail", exc)',
            '    print("package bytes:", os.path.getsize(package))',
            "    try:",
            "        loaded = torch._inductor.aoti_load_package(package)",
            "    except Exception as exc:",
            '        return failed("load-fail", exc)',
            "    try:",
            "        with torch.no_grad():",
            "            out = loaded(*capture_inputs())",
            "    except Exception as exc:",
            '        return failed("run-fail", exc)',
            "    return verdict(reference, captured_tensors(out))",
        ),
    )

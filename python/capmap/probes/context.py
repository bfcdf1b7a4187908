"""What the probes of one task share: the case, its eager reference, what a path leaves for the
paths that build on it, and the library code the task enters."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import torch

from capmap.capture import FlatCase
from capmap.cases import Case
from capmap.compare import Comparison
from capmap.errors import LibraryRoot, describe
from capmap.probes.case_calls import FlatCalls, PlainCalls
from capmap.probes.process_plumbing import Stopwatch
from capmap.tracing.file_trace import LibraryFileTrace, dynamo_traced_code


def export_kind(strict: bool) -> str:
    """How `library_trace` names a torch.export call."""
    return "strict" if strict else "non-strict"


@dataclass
class ProbeContext:
    case: Case
    settings: dict[str, Any]
    root: LibraryRoot | None
    # Flattened eager outputs: what every capture path is compared with.
    reference: list[torch.Tensor] = field(default_factory=list)
    # What a path leaves, by its name, for the paths that build on it: the export path's program,
    # so the ONNX path converts the same program instead of tracing again.
    products: dict[str, Any] = field(default_factory=dict)
    # The capture wrapper, set by the eager run unless the run or the case turned flattening off.
    flat: FlatCase | None = None
    # The library files the case depends on; building a deferred target already added to it.
    files: LibraryFileTrace | None = None
    # The exports a trace has already followed in this task, by `library_trace`'s key.
    traced_exports: set[str] = field(default_factory=set)
    # The task's rehearsal ran the capture module under an export's flags (probes/rehearsal.py).
    rehearsed: bool = False
    # The case computed in float64 (probes/conditioning.py), once the first mismatch of values
    # asked for it: how far eager float32 itself lies from it.
    float64: Any = None

    @contextlib.contextmanager
    def library_trace(self, export: str | None = None) -> Iterator[None]:
        """Around an export: the library code it enters joins the case's files and functions,
        as the eager call's did, so a change to code only a capture runs still selects the
        case. A non-strict export runs the code (a trace sees its frames); a strict one has
        dynamo trace it (see `dynamo_code`).

        `export` names a static export (`non-strict`, `strict`); None is a dynamic-shape one.
        After the task's rehearsal (probes/rehearsal.py) a static export runs no library code
        the rehearsal did not, so only dynamo's code is collected. Without it, the same export
        traced again in the task (the exporter's own attempt after the export path's failed,
        on the same module and inputs) runs the same frames, and the trace's tracing mode would
        double its seconds (bench/trace_repeat.py), so a repeat only collects dynamo's code."""
        if self.files is None:
            yield
            return
        repeat = export is not None and (self.rehearsed or export in self.traced_exports)
        if export is not None:
            self.traced_exports.add(export)
        with contextlib.nullcontext() if repeat else self.files, self.dynamo_code():
            yield

    @contextlib.contextmanager
    def dynamo_code(self) -> Iterator[None]:
        """Around a torch.compile: the library code dynamo traced (inlined without running
        a frame, so no trace sees it) joins the case's files and functions."""
        if self.files is None:
            yield
            return
        with dynamo_traced_code() as found:
            try:
                yield
            finally:  # what dynamo traced before a failure counts too
                self.files.add_code(code for codes in found for code in codes)

    def static_program(self, stages: dict[str, float]) -> tuple[Any, BaseException | None]:
        """The export path's program when it ran in this task, else this path's own
        `torch.export.export` of the capture module, its seconds in `stages["export"]`: the
        program, or the exception that kept it from being made."""
        shared = self.products.get("export")
        if shared is not None:
            return shared, None
        strict = bool(self.settings["export_strict"])
        watch = Stopwatch()
        try:
            # When the export path made this same call, its frames are already traced.
            with self.library_trace(export_kind(strict)):
                module = self.capture_module().eval()
                return torch.export.export(module, self.capture_inputs(), strict=strict), None
        except Exception as exc:  # noqa: BLE001 - without a program there is nothing to build on
            return None, exc
        finally:
            stages["export"] = watch.seconds()

    def threads(self) -> int:
        """The task's share of the CPU, for a runtime that sizes its own thread pool."""
        return int(self.settings.get("threads") or torch.get_num_threads())

    @property
    def calls(self) -> PlainCalls | FlatCalls:
        """How the case is called: through the wrapper once the eager run set one up."""
        return FlatCalls(self.flat) if self.flat is not None else PlainCalls(self.case)

    def fresh_inputs(self) -> tuple[Any, ...]:
        """The case's inputs with fresh tensors (library objects rebuilt around them when flattening)."""
        return self.calls.fresh_inputs()

    def call(self, *values: Any) -> Any:
        """The case called on `fresh_inputs()`: with flattening, a method's receiver comes first."""
        return self.calls.call(*values)

    def case_function(self) -> Any:
        """What torch.compile compiles, a function of `fresh_inputs()`: the case's own callable,
        or for a method on a library object a function of the object and the arguments (what a
        user compiles); never capmap's wrapper, whose frame would count every graph break twice.
        A class is compiled through a plain function that constructs it: `torch.compile(cls)`
        installs a compiled `__call__` on the class itself, so its instances would look callable
        (opaque) to the output flattening."""
        function = self.calls.function()
        if isinstance(function, type):
            cls = function

            def construct(*args: Any, **kwargs: Any) -> Any:
                return cls(*args, **kwargs)

            return construct
        return function

    def with_receiver(self, out: Any, values: tuple[Any, ...]) -> Any:
        """A compiled call's result as `call` returns it: with the receiver when it changes."""
        return self.calls.with_receiver(out, values)

    def capture_module(self) -> torch.nn.Module:
        """What the export paths trace: the wrapper (tensors in, tensors out), else the case as is."""
        return self.calls.capture_module()

    def capture_inputs(self) -> tuple[Any, ...]:
        return self.calls.capture_inputs()

    def captured_tensors(self, out: Any) -> list[torch.Tensor]:
        """The tensors a traced capture returned (from `capture_module`, or ONNX Runtime's list)."""
        return self.calls.captured_tensors(out)

    def output_tensors(self, out: Any, describe: bool = False) -> list[torch.Tensor]:
        """The tensors of a result of the case itself (eager, compiled), flattened as the wrapper does."""
        return self.calls.output_tensors(out, describe)

    def error_fields(self, exc: BaseException) -> dict[str, Any]:
        return describe(exc, self.root).fields()

    def agreed(self, result: Comparison, record: dict[str, Any], verified: str = "ok") -> dict[str, Any]:
        """The record of a capture whose outputs agree with eager: `verified` (`ok`, `ok-breaks`)
        when the comparison checked values, else `ok-unverified`, saying why when the case
        asked for a check that eager's values made vacuous."""
        if not self.case.check:
            return {"status": "ok-unverified", **record}
        if result.vacuous:
            return {"status": "ok-unverified", **record, "message": result.vacuous}
        return {"status": verified, **record}

    def compare_kwargs(self) -> dict[str, Any]:
        return {"check": self.case.check, "atol": self.case.atol, "rtol": self.case.rtol}

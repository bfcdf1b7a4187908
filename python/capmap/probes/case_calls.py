"""How a task calls its case: as the registry wrote it, or through capmap's capture wrapper
(`capmap.capture`) once the eager run set one up. The probes ask the task's context, which
asks one of these; each answers every question the same way."""

from __future__ import annotations

from typing import Any

import torch

from capmap.capture import FlatCase, tensors_of
from capmap.cases import Case
from capmap.compare import clone_inputs, flatten


class CaseModule(torch.nn.Module):
    """Wraps a case's callable as a module, registering the target so its parameters are traced."""

    def __init__(self, case: Case) -> None:
        super().__init__()
        if isinstance(case.target, torch.nn.Module):
            self.target = case.target
        self._call = case.callable()

    def forward(self, *args: Any) -> Any:
        return self._call(*args)


class PlainCalls:
    """The case as is: its own inputs cloned for each call, its callable, and for the export
    paths that callable wrapped in a `CaseModule`."""

    def __init__(self, case: Case) -> None:
        self.case = case

    def fresh_inputs(self) -> tuple[Any, ...]:
        return tuple(clone_inputs(self.case.inputs))

    def call(self, *values: Any) -> Any:
        return self.case.callable()(*values)

    def function(self) -> Any:
        return self.case.callable()

    def with_receiver(self, out: Any, values: tuple[Any, ...]) -> Any:
        return out

    def capture_module(self) -> torch.nn.Module:
        return CaseModule(self.case)

    def capture_inputs(self) -> tuple[Any, ...]:
        return self.fresh_inputs()

    def captured_tensors(self, out: Any) -> list[torch.Tensor]:
        return flatten(out)

    def output_tensors(self, out: Any, describe: bool = False) -> list[torch.Tensor]:
        return flatten(out)


class FlatCalls:
    """The case through the wrapper: fresh tensors with the library objects rebuilt around them,
    a method's receiver first, tensors in and tensors out for the export paths."""

    def __init__(self, flat: FlatCase) -> None:
        self.flat = flat

    def fresh_inputs(self) -> tuple[Any, ...]:
        return tuple(self.flat.plan.rebuild(self.flat.plan.fresh_tensors()))

    def call(self, *values: Any) -> Any:
        return self.flat.call(*values)

    def function(self) -> Any:
        return self.flat.function

    def with_receiver(self, out: Any, values: tuple[Any, ...]) -> Any:
        return self.flat.with_receiver(out, values)

    def capture_module(self) -> torch.nn.Module:
        return self.flat.module

    def capture_inputs(self) -> tuple[Any, ...]:
        return self.flat.plan.fresh_tensors()

    def captured_tensors(self, out: Any) -> list[torch.Tensor]:
        return tensors_of(out)

    def output_tensors(self, out: Any, describe: bool = False) -> list[torch.Tensor]:
        return self.flat.output_tensors(out, describe)

"""The state a case's target starts each capture path from: every path starts from the object
the eager reference started from (see docs/reference/capture-paths.md, "The capture wrapper")."""

from __future__ import annotations

from typing import Any

import torch

from capmap.capture import attributes, is_opaque
from capmap.cases import Case


class TargetState:
    """The attributes of a method case's target object, put back before every path: a method that
    changes its object (`Boxes.transform_boxes_`, `scale_`) would otherwise hand each later path
    the state the earlier ones left, and a trace leaves fake tensors behind."""

    def __init__(self, target: Any) -> None:
        self.target = target
        self.saved = [(name, _fresh(value)) for _, name, value in attributes(target)]

    def restore(self) -> None:
        for name, value in self.saved:
            object.__setattr__(self.target, name, _fresh(value))


def _fresh(value: Any) -> Any:
    return value.detach().clone() if isinstance(value, torch.Tensor) else value


class ModuleState:
    """The state of a module target and its submodules, put back before every path: a module
    that counts its calls in a buffer, or a metric that accumulates in `update`, would otherwise
    start each later path from what the earlier calls left (a false mismatch). Buffers and plain
    attributes are copied (tensors cloned, lists and dicts of them copied); parameters are not:
    no probe trains, and copying a network's weights per path would cost too much."""

    def __init__(self, target: torch.nn.Module) -> None:
        self.saved = [
            (module, {name: _copied(value) for name, value in vars(module).items() if name not in _KEPT})
            for module in target.modules()
        ]

    def restore(self) -> None:
        for module, saved in self.saved:
            for name in [n for n in vars(module) if n not in _KEPT and n not in saved]:
                del module.__dict__[name]  # what a call added (a cache, a traced leftover)
            for name, value in saved.items():
                module.__dict__[name] = _copied(value)


# A module's parameter and submodule registries are its structure, not its state.
_KEPT = frozenset({"_parameters", "_modules"})


def _copied(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        return value.detach().clone()
    if type(value) in (list, tuple):
        return type(value)(_copied(v) for v in value)
    if type(value) is dict:
        return {k: _copied(v) for k, v in value.items()}
    return value


def target_state(case: Case) -> TargetState | ModuleState | None:
    """Saved state of a case's target: a library object a method is called on, or a module."""
    target = case.target
    try:
        if isinstance(target, torch.nn.Module):
            return ModuleState(target)
        if case.method is None or is_opaque(target):
            return None
        return TargetState(target)
    except Exception:  # noqa: BLE001 - an object whose attributes cannot be read is left as it is
        return None

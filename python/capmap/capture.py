"""The capture wrapper: library containers at a case's edges become plain tensors.

Exporters take tensors and pytrees; a library's own objects (a box set, a 3-vector, a plane held
in an nn.Module) are neither, so exporting a case that takes or returns one fails on the container
before it reaches the operator. The wrapper probes what the operator computes instead: its graph
inputs are the tensors found inside the case's inputs, the library objects are rebuilt around them
inside the wrapper, and its outputs are the tensors found inside the result. `FlatCase.notes`
says what was opened, for the record ("input Vector3 → 1 tensor").
"""

from __future__ import annotations

import copy
import dataclasses
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

from capmap.cases import Case
from capmap.compare import numpy_to_tensor

# Containers are opened at most this deep, so a self-referencing object cannot loop forever.
_MAX_DEPTH = 16
# Values that are never containers of tensors.
_ATOMS = (str, bytes, int, float, complex, bool, type(None), torch.dtype, torch.device, torch.Size)
# An nn.Module's bookkeeping: its tensors live in _parameters, _buffers and _modules.
_MODULE_INTERNALS = frozenset(vars(torch.nn.Module()))


# ---- the structure of the inputs -----------------------------------------------------------


@dataclass
class _Leaf:
    index: int  # position among the graph inputs


@dataclass
class _Const:
    value: Any


@dataclass
class _Seq:
    kind: type
    items: list[Any]


@dataclass
class _Map:
    kind: type
    keys: list[Any]
    items: list[Any]


@dataclass
class _Obj:
    template: Any
    # (where the attribute lives: "attr", "param", "buffer" or "module"; its name; its node)
    attrs: list[tuple[str, str, Any]]


def attributes(obj: Any) -> list[tuple[str, str, Any]]:
    """The values an object holds: another object's instance dict and slots, in the order it set
    them; an nn.Module's parameters, buffers, submodules and plain attributes sorted by name,
    because where a module keeps a value can differ between eager and a trace (a parameter in
    eager, a plain attribute once tracing made it a fake tensor), and the order of the flattened
    tensors must not."""
    found: list[tuple[str, str, Any]] = []
    if isinstance(obj, torch.nn.Module):
        found += [("param", n, v) for n, v in obj._parameters.items() if v is not None]
        found += [("buffer", n, v) for n, v in obj._buffers.items() if v is not None]
        found += [("module", n, v) for n, v in obj._modules.items() if v is not None]
        found += [("attr", n, v) for n, v in vars(obj).items() if n not in _MODULE_INTERNALS]
        return sorted(found, key=lambda item: item[1])
    names: list[str] = list(getattr(obj, "__dict__", {}))
    for klass in type(obj).__mro__:
        slots = klass.__dict__.get("__slots__", ())
        for name in (slots,) if isinstance(slots, str) else slots:
            if name not in ("__dict__", "__weakref__") and name not in names:
                names.append(name)
    for name in names:
        try:
            found.append(("attr", name, getattr(obj, name)))
        except AttributeError:
            continue  # an unset slot
    return found


def is_network(value: Any) -> bool:
    """A module with a `forward` of its own: its weights are the model's parameters, as in a
    user's export, never graph inputs. A module without one (a plane, a rotation) holds data."""
    return isinstance(value, torch.nn.Module) and type(value).forward is not torch.nn.Module.forward


def has_receiver(case: Case) -> bool:
    """Whether a method case's object is data the method works on (a box set, a rotation, a
    camera): its tensors are then graph inputs, as a user's own wrapper would take them. A
    network's method (`DeDoDe.detect`) keeps its weights as parameters instead."""
    target = case.target
    return case.method is not None and not is_network(target) and not is_opaque(target)


def is_opaque(value: Any) -> bool:
    """Values never opened: atoms, functions, classes, modules of code."""
    if isinstance(value, _ATOMS) or isinstance(value, type):
        return True
    return callable(value) and not isinstance(value, torch.nn.Module)


def _tensor_count(node: Any) -> int:
    if isinstance(node, _Leaf):
        return 1
    if isinstance(node, (_Seq, _Map)):
        return sum(_tensor_count(n) for n in node.items)
    if isinstance(node, _Obj):
        return sum(_tensor_count(n) for _, _, n in node.attrs)
    return 0


def _copy_object(template: Any) -> Any:
    new = copy.copy(template)
    if isinstance(template, torch.nn.Module):
        # A shallow copy shares the registries with the template; the rebuilt object gets its own.
        for name in ("_parameters", "_buffers", "_modules"):
            new.__dict__[name] = dict(template.__dict__[name])
    return new


def _build(node: Any, tensors: list[torch.Tensor] | tuple[torch.Tensor, ...]) -> Any:
    if isinstance(node, _Leaf):
        return tensors[node.index]
    if isinstance(node, _Const):
        return node.value
    if isinstance(node, _Seq):
        items = [_build(n, tensors) for n in node.items]
        if node.kind is list:
            return items
        if hasattr(node.kind, "_fields"):
            return node.kind(*items)
        return node.kind(items)
    if isinstance(node, _Map):
        return node.kind(zip(node.keys, (_build(n, tensors) for n in node.items), strict=True))
    new = _copy_object(node.template)
    for where, name, child in node.attrs:
        value = _build(child, tensors)
        if where == "param":
            new._parameters[name] = value
        elif where == "buffer":
            new._buffers[name] = value
        elif where == "module":
            new._modules[name] = value
        else:
            object.__setattr__(new, name, value)
    return new


@dataclass
class InputPlan:
    """The tensors inside a case's inputs and how to rebuild the inputs around other tensors."""

    tensors: list[torch.Tensor] = field(default_factory=list)
    nodes: list[Any] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # Networks among the inputs: passed whole and registered on the wrapper, so their weights
    # are parameters of the graph (as in a user's export of a model that calls them).
    networks: list[torch.nn.Module] = field(default_factory=list)
    # NumPy arrays among the inputs: no capture path traces one, each is baked in.
    arrays: int = 0

    def rebuild(self, tensors: list[torch.Tensor] | tuple[torch.Tensor, ...]) -> list[Any]:
        return [_build(n, tensors) for n in self.nodes]

    def fresh_tensors(self) -> tuple[torch.Tensor, ...]:
        return tuple(t.detach().clone() for t in self.tensors)


def plan_inputs(inputs: list[Any], receiver: bool = False) -> InputPlan:
    """The plan of `inputs`; with `receiver`, the first is the object a method is called on."""
    plan = InputPlan()
    index_of: dict[int, int] = {}

    def walk(value: Any, depth: int, path: frozenset[int]) -> Any:
        if isinstance(value, torch.Tensor):
            if id(value) not in index_of:
                index_of[id(value)] = len(plan.tensors)
                plan.tensors.append(value)
            return _Leaf(index_of[id(value)])
        if isinstance(value, np.ndarray):
            # Exporters take no arrays: it becomes a constant of the graph, and the record says so.
            plan.notes.append(f"input ndarray{list(value.shape)} baked into the graph: not a tensor")
            plan.arrays += 1
            return _Const(value)
        if is_network(value):
            if not any(value is n for n in plan.networks):
                plan.networks.append(value)
            return _Const(value)
        if depth > _MAX_DEPTH or id(value) in path or is_opaque(value):
            return _Const(value)
        inner = path | {id(value)}
        if isinstance(value, dict):
            items = [walk(v, depth + 1, inner) for v in value.values()]
            if any(not isinstance(n, _Const) for n in items):
                return _Map(type(value), list(value), items)
            return _Const(value)
        if isinstance(value, (list, tuple)):
            items = [walk(v, depth + 1, inner) for v in value]
            if any(not isinstance(n, _Const) for n in items):
                return _Seq(type(value), items)
            return _Const(value)
        return walk_object(value, depth, inner)

    def walk_object(value: Any, depth: int, inner: frozenset[int]) -> Any:
        mark = len(plan.tensors), dict(index_of)
        attrs = [(w, n, walk(v, depth + 1, inner)) for w, n, v in attributes(value)]
        attrs = [(w, n, node) for w, n, node in attrs if not isinstance(node, _Const)]
        if not attrs:
            return _Const(value)
        return checked(_Obj(value, attrs), value, mark)

    def checked(node: Any, value: Any, mark: tuple[int, dict[int, int]]) -> Any:
        """The node, once a trial rebuild around the original tensors worked; else the value whole."""
        try:
            rebuilt = _build(node, plan.tensors)
            if type(rebuilt) is not type(value):
                raise TypeError(f"a copy is a {type(rebuilt).__name__}")
        except Exception as exc:  # noqa: BLE001 - any failure means this value stays whole
            # Its tensors are no graph inputs after all: it is passed whole, as a constant.
            del plan.tensors[mark[0] :]
            index_of.clear()
            index_of.update(mark[1])
            baked = _plural(_tensor_count(node))
            plan.notes.append(
                f"input {type(value).__name__} kept whole, cannot be rebuilt "
                f"({type(exc).__name__}: {str(exc)[:120]}): {baked} baked into the graph"
            )
            return _Const(value)
        return node

    for value in inputs:
        mark = len(plan.tensors), dict(index_of)
        node = walk(value, 0, frozenset())
        # Containers are checked too (a dict subclass may not take its items back).
        plan.nodes.append(node if isinstance(node, (_Leaf, _Const, _Obj)) else checked(node, value, mark))
    _describe_inputs(plan.nodes, plan.notes, receiver)
    return plan


def _describe_inputs(nodes: list[Any], notes: list[str], receiver: bool) -> None:
    """One line per outermost library object among the inputs (the receiver named as such)."""

    def visit(node: Any, role: str) -> None:
        if isinstance(node, _Obj):
            notes.append(f"{role} {type(node.template).__name__} → {_plural(_tensor_count(node))}")
        elif isinstance(node, (_Seq, _Map)):
            for child in node.items:
                visit(child, role)

    for i, node in enumerate(nodes):
        visit(node, "receiver" if receiver and i == 0 else "input")


def _plural(count: int) -> str:
    return f"{count} tensor" if count == 1 else f"{count} tensors"


# ---- the tensors of the result -------------------------------------------------------------


def flatten_output(value: Any, notes: list[str] | None = None) -> list[torch.Tensor]:
    """Every tensor in a result, in order: pytrees, named tuples, dataclasses, library objects
    (their attributes, else their `.data`), nn.Modules (their parameters, buffers, submodules
    and tensor attributes). With `notes`, adds one line per outermost library object."""
    found: list[torch.Tensor] = []

    def walk(item: Any, depth: int, path: frozenset[int], noted: bool) -> None:
        if isinstance(item, torch.Tensor):
            found.append(item)
            return
        if isinstance(item, np.ndarray):
            found.append(numpy_to_tensor(item))
            return
        if depth > _MAX_DEPTH or id(item) in path or is_opaque(item):
            return
        inner = path | {id(item)}
        if isinstance(item, dict):
            for v in item.values():
                walk(v, depth + 1, inner, noted)
            return
        if isinstance(item, (list, tuple)):
            for v in item:
                walk(v, depth + 1, inner, noted)
            return
        before = len(found)
        if dataclasses.is_dataclass(item):
            for f in dataclasses.fields(item):
                walk(getattr(item, f.name), depth + 1, inner, True)
        else:
            for _, _, v in attributes(item):
                walk(v, depth + 1, inner, True)
            data = getattr(item, "data", None)
            if len(found) == before and isinstance(data, torch.Tensor):
                found.append(data)
        if notes is not None and not noted and len(found) > before:
            notes.append(f"output {type(item).__name__} → {_plural(len(found) - before)}")

    walk(value, 0, frozenset(), False)
    return found


# ---- the wrapper -----------------------------------------------------------------------------


class FlatCaseModule(torch.nn.Module):
    """Tensors in, tensors out: rebuilds the case's inputs (its receiver first, for a method on
    a library object), calls it, returns the result's tensors (one tensor bare, several as a
    tuple). A network target and the networks among the inputs are registered, so their weights
    are traced as parameters."""

    def __init__(self, case: Case, flat: FlatCase) -> None:
        super().__init__()
        if isinstance(case.target, torch.nn.Module) and not flat.receiver:
            self.target = case.target
        for i, network in enumerate(flat.plan.networks):
            self.add_module(f"input_network_{i}", network)
        self._flat = flat

    def forward(self, *tensors: torch.Tensor) -> Any:
        out = flatten_output(self._flat.call(*self._flat.plan.rebuild(tensors)))
        return out[0] if len(out) == 1 else tuple(out)


@dataclass
class FlatCase:
    """What every path of one task shares when the case is flattened: the input plan, the
    wrapper, and what was opened (the result's lines are added by the eager reference run).

    With a receiver (a method on a library object), the rebuilt inputs start with the object,
    so its tensors reach the graph as inputs. When the first call (the eager reference) changes
    the receiver, every later call returns `(result, receiver)`: a method that works in place is
    compared on the object's tensors too."""

    plan: InputPlan
    notes: list[str]
    function: Any
    receiver: bool = False
    receiver_out: bool | None = None
    module: FlatCaseModule = field(init=False)  # set by flat_case

    def call(self, *values: Any) -> Any:
        """The case called on rebuilt inputs (`plan.rebuild`), as every path calls it."""
        if not self.receiver:
            return self.function(*values)
        if self.receiver_out is None:
            before = [t.detach().clone() for t in flatten_output(values[0])]
            out = self.function(*values)
            self.receiver_out = _changed(before, flatten_output(values[0]))
            if self.receiver_out:
                self.notes.append(
                    f"receiver {type(values[0]).__name__} changed by the call: its tensors are compared too"
                )
        else:
            out = self.function(*values)
        return self.with_receiver(out, values)

    def with_receiver(self, out: Any, values: tuple[Any, ...]) -> Any:
        """A call's result with its receiver, once the first call found that the call changes it.
        A method that returns its own object (`kp.transform_keypoints_(H)`) already returns the
        receiver's tensors: returning them twice would make every ONNX graph name an output twice."""
        return (out, values[0]) if self.receiver_out and out is not values[0] else out

    def output_tensors(self, result: Any, describe: bool = False) -> list[torch.Tensor]:
        lines: list[str] | None = [] if describe else None
        tensors = flatten_output(result, lines)
        if lines:
            self.notes += _counted(lines)
        return tensors


def _changed(before: list[torch.Tensor], after: list[torch.Tensor]) -> bool:
    """Whether a receiver's tensors differ after a call: in number, shape, dtype or value."""
    if len(before) != len(after):
        return True
    for b, a in zip(before, after, strict=True):
        if b.shape != a.shape or b.dtype != a.dtype or not torch.equal(b, a.detach()):
            if b.shape == a.shape and b.dtype == a.dtype and b.is_floating_point():
                # NaN never equals itself: the same NaN positions and values is no change.
                if torch.equal(torch.isnan(b), torch.isnan(a)) and torch.equal(
                    torch.nan_to_num(b), torch.nan_to_num(a.detach())
                ):
                    continue
            return True
    return False


def _counted(lines: list[str]) -> list[str]:
    """Repeated lines once, with how many times they occurred."""
    out: list[str] = []
    for line in dict.fromkeys(lines):
        n = lines.count(line)
        out.append(line if n == 1 else f"{line} (×{n})")
    return out


def flat_case(case: Case) -> FlatCase:
    receiver = has_receiver(case)
    kwargs = case.kwargs
    if receiver:
        plan = plan_inputs([case.target, *case.inputs], receiver=True)
        method = str(case.method)

        def function(obj: Any, *args: Any) -> Any:
            return getattr(obj, method)(*args, **kwargs)

    else:
        plan = plan_inputs(case.inputs)
        function = case.callable()
    flat = FlatCase(plan, _counted(plan.notes), function, receiver)
    flat.module = FlatCaseModule(case, flat)
    return flat


def flattening_wanted(case: Case, settings: dict[str, Any]) -> bool:
    """Flattening is on unless the run (`"flatten": false`) or the case turns it off."""
    return bool(settings.get("flatten", True)) and case.flatten


def tensors_of(outputs: Any) -> list[torch.Tensor]:
    """The tensors a captured run of the wrapper returned (a tensor, a tuple or ONNX Runtime's list)."""
    if isinstance(outputs, torch.Tensor):
        return [outputs]
    return [numpy_to_tensor(o) if isinstance(o, np.ndarray) else o for o in outputs]

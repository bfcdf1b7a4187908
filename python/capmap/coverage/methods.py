"""The public methods of a library's public classes: methods, constructors, computing
properties and arithmetic operators, as the library's own classes define them."""

from __future__ import annotations

import dis
import enum
import inspect
from dataclasses import dataclass, field
from typing import Any

from capmap.coverage.callables import PublicCallable, belongs

# Operator dunders that compute (q1 + q2, -q, pose * points); comparisons, indexing and the
# object protocol are left out.
ARITHMETIC_DUNDERS = frozenset(
    f"__{op}__"
    for base in ("add", "sub", "mul", "matmul", "truediv", "floordiv", "mod", "pow")
    for op in (base, "r" + base)
) | frozenset({"__neg__", "__pos__", "__abs__", "__invert__"})

# Bytecode of a getter that only reads stored attributes (`return self._data`): no computation.
_ACCESSOR_OPS = frozenset(
    {"RESUME", "NOP", "CACHE", "LOAD_FAST", "LOAD_DEREF", "COPY_FREE_VARS", "LOAD_ATTR", "LOAD_CONST"}
    | {"RETURN_VALUE", "RETURN_CONST", "LOAD_FAST_LOAD_FAST", "LOAD_FAST_BORROW", "EXTENDED_ARG"}
)


@dataclass
class PublicMethod:
    """One function defined by a library class, with every public `Class.name` it is reachable
    under, grouped by the public class (id) that exposes it."""

    func: Any
    kind: str  # method, classmethod, staticmethod, property or operator
    owners: dict[int, list[str]] = field(default_factory=dict)

    @property
    def names(self) -> list[str]:
        return [n for names in self.owners.values() for n in names]

    @property
    def canonical(self) -> str:
        return min(self.names, key=lambda n: (n.count("."), len(n), n))

    @property
    def owner(self) -> str:
        return self.canonical.rsplit(".", 1)[0]


def _raw_member(cls: type, name: str) -> Any:
    """The attribute as the class body defined it (staticmethod, property...), first in the MRO."""
    for klass in cls.__mro__:
        if name in vars(klass):
            return vars(klass)[name]
    return None


def _method_function(raw: Any) -> tuple[Any, str] | None:
    """(function, kind) for a class attribute that is a method of some kind, else None."""
    if isinstance(raw, staticmethod):
        return raw.__func__, "staticmethod"
    if isinstance(raw, classmethod):
        return raw.__func__, "classmethod"
    if isinstance(raw, property):
        return (raw.fget, "property") if raw.fget is not None else None
    if inspect.isfunction(raw):
        return raw, "method"
    return None


def _computes(getter: Any) -> bool:
    """Whether a property getter does more than return a stored attribute."""
    try:
        ops = {ins.opname for ins in dis.get_instructions(getter)}
    except TypeError:
        return True
    return not ops <= _ACCESSOR_OPS


def _tensor_valued(getter: Any, root: str) -> bool:
    """Whether a property's return annotation is a tensor or a class of the library; an
    unannotated getter counts (it cannot be told apart)."""
    hint = getattr(getter, "__annotations__", {}).get("return", inspect.Signature.empty)
    if hint is inspect.Signature.empty:
        return True
    text = hint if isinstance(hint, str) else getattr(hint, "__name__", repr(hint))
    if "Tensor" in text:
        return True
    scope = getattr(getter, "__globals__", {})
    for word in text.replace("|", " ").replace("[", " ").replace("]", " ").replace(",", " ").split():
        value = scope.get(word.strip("'\""))
        if inspect.isclass(value) and belongs(value, root):
            return True
    return False


def public_methods(root: str, callables: list[PublicCallable]) -> list[PublicMethod]:
    """The methods of the public classes among `callables`: public methods, classmethod and
    staticmethod constructors, tensor-valued properties that compute, and arithmetic dunders,
    as defined by the library's classes (not by torch.nn.Module or object). `forward` is the
    class itself, and a Module subclass's overrides of Module's own API (to, compile,
    load_state_dict) are plumbing. Enumerations' helpers are not operators."""
    try:
        import torch

        module_base: type | None = torch.nn.Module
    except ImportError:
        module_base = None
    found: dict[int, PublicMethod] = {}
    order: list[int] = []
    for pc in callables:
        cls = pc.obj
        if not inspect.isclass(cls) or issubclass(cls, enum.Enum):
            continue
        is_module = module_base is not None and issubclass(cls, module_base)
        seen: set[str] = set()
        for klass in cls.__mro__:
            if not belongs(klass, root):
                continue
            for attr, raw in vars(klass).items():
                if attr in seen:
                    continue
                seen.add(attr)
                if attr.startswith("_") and attr not in ARITHMETIC_DUNDERS:
                    continue
                if attr == "forward" or (is_module and hasattr(module_base, attr)):
                    continue
                got = _method_function(raw)
                if got is None:
                    continue
                func, kind = got
                if kind == "property" and not (_computes(func) and _tensor_valued(func, root)):
                    continue
                if attr in ARITHMETIC_DUNDERS:
                    kind = "operator"
                key = id(func)
                if key not in found:
                    found[key] = PublicMethod(func=func, kind=kind)
                    order.append(key)
                names = found[key].owners.setdefault(id(cls), [])
                names.extend(f"{n}.{attr}" for n in pc.names if f"{n}.{attr}" not in names)
    return [found[k] for k in order]


def member_key(owner: Any, attr: str) -> int | None:
    """id of the function behind `owner.attr` (owner a class or an instance), or None."""
    cls = owner if inspect.isclass(owner) else type(owner)
    got = _method_function(_raw_member(cls, attr))
    return id(got[0]) if got is not None else None

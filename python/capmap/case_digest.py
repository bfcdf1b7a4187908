"""A digest of what a case hands the operator: its target, method, inputs and keyword arguments.

The digest goes into the case's inventory (`inputs`), so a registry edit that changes what a
case computes on (other values, another seed, weights drawn in another order) makes the case a
changed definition for `--changed-auto` and `--changed-since`, while moving the case to another
file or line does not. Nothing is built: a deferred target is digested as its constructor call.

Values are digested by content: a tensor by dtype, shape and how it was made (its recipe, recorded
while the registry imported: `capmap.tensor_recipes`), or by its bytes when no recorded call made
it, so that the digest is the same on every CPU, BLAS path and thread count; a module or any other object
by its class and attributes; a function of the registry by its source, its defaults, its closure
and the module-level values it names; a function of a library (torch, the surveyed library) by
its dotted name, since edits of library files are what the recorded file hashes catch.
"""

from __future__ import annotations

import hashlib
import inspect
import re
import types
from typing import Any

from capmap import tensor_recipes
from capmap.cases import Case
from capmap.deferred import Deferred
from capmap.surveyed_library import code_names

# Objects deeper than this are named by their class, so that a chain the identity guard does not
# see as a cycle cannot recurse without end. A network's weights sit about four levels down per
# level of nested modules (object, attributes, submodule table, submodule), and the deepest of
# Kornia's reach 27.
_MAX_DEPTH = 200
# Packages whose functions and classes are named, not read: their code is the surveyed
# library's or the platform's, not the registry's.
_NAMED_ONLY = ("torch", "builtins", "numpy", "functools", "typing", "collections", "math", "operator")
_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")


class _Digester:
    def __init__(self, library: str | None, by_bytes: bool = False) -> None:
        self.named_only = _NAMED_ONLY + ((library,) if library else ())
        self.by_bytes = by_bytes
        # Shared objects (a model several cases call, an input tensor used twice) are read once.
        self.memo: dict[int, bytes] = {}
        self.keep: list[Any] = []  # keeps memoised objects alive, so their ids stay theirs
        self.active: set[int] = set()

    def of(self, obj: Any, depth: int = 0) -> bytes:
        key = id(obj)
        if key in self.memo:
            return self.memo[key]
        if key in self.active or depth > _MAX_DEPTH:
            return b"cycle:" + _class_name(type(obj)).encode()
        self.active.add(key)
        try:
            h = hashlib.sha256(self._parts(obj, depth)).digest()
        finally:
            self.active.discard(key)
        self.memo[key] = h
        self.keep.append(obj)
        return h

    def _parts(self, obj: Any, depth: int) -> bytes:
        import torch

        if obj is None or isinstance(obj, (bool, int, float, complex, str, bytes)):
            return f"{type(obj).__name__}:{obj!r}".encode()
        if isinstance(obj, torch.Tensor):
            return self._tensor(obj)
        if isinstance(obj, (torch.dtype, torch.device, torch.Size, torch.layout, torch.memory_format)):
            return f"torch:{obj}".encode()
        if isinstance(obj, Deferred):
            return b"deferred:" + self._sequence([obj.factory, list(obj.args), obj.kwargs], depth)
        if isinstance(obj, (list, tuple)):
            return type(obj).__name__.encode() + b":" + self._sequence(list(obj), depth)
        if isinstance(obj, dict):
            items = [self.of(k, depth + 1) + self.of(v, depth + 1) for k, v in obj.items()]
            return b"dict:" + b"".join(items)
        if isinstance(obj, (set, frozenset)):
            return b"set:" + b"".join(sorted(self.of(v, depth + 1) for v in obj))
        if isinstance(obj, types.ModuleType):
            return f"module:{obj.__name__}".encode()
        if isinstance(obj, types.MethodType):
            return b"method:" + self.of(obj.__func__, depth + 1) + self.of(obj.__self__, depth + 1)
        if isinstance(obj, (types.FunctionType, type)):
            return self._code(obj, depth)
        if callable(obj) and not hasattr(obj, "__dict__"):
            # Builtins and C functions: their name is all there is.
            return f"callable:{_callable_name(obj)}".encode()
        state = getattr(obj, "__dict__", None)
        if isinstance(state, dict):
            return f"object:{_class_name(type(obj))}:".encode() + self.of(dict(state), depth + 1)
        slots = [s for k in type(obj).__mro__ for s in getattr(k, "__slots__", ())]
        if slots:
            values = {s: getattr(obj, s, None) for s in slots if isinstance(s, str)}
            return f"slots:{_class_name(type(obj))}:".encode() + self.of(values, depth + 1)
        # Enums, generators and the like: their printed form, without memory addresses.
        return f"repr:{_class_name(type(obj))}:{_ADDRESS.sub('0x', repr(obj))}".encode()

    def _sequence(self, values: list[Any], depth: int) -> bytes:
        return b"".join(self.of(v, depth + 1) for v in values)

    def _tensor(self, t: Any) -> bytes:
        head = f"tensor:{t.dtype}:{tuple(t.shape)}:{t.layout}:{t.requires_grad}:".encode()
        made = None if self.by_bytes else tensor_recipes.recipe_of(t)
        if made is not None:
            return head + b"recipe:" + made
        # By bytes, as digests were before recipes: `--bytes` reproduces a digest stored then.
        return head + tensor_recipes.value_bytes(t)

    def _code(self, obj: Any, depth: int) -> bytes:
        """A class or function: named when a library's, read (source, defaults, closure and the
        module-level values it uses) when the registry's own."""
        module = getattr(obj, "__module__", "") or ""
        name = f"{module}.{getattr(obj, '__qualname__', getattr(obj, '__name__', '?'))}"
        capmaps_own = module.startswith("capmap.") and not module.startswith("capmap.registries")
        if module.split(".", 1)[0] in self.named_only or capmaps_own:
            return f"named:{name}".encode()
        try:
            source = inspect.getsource(obj)
        except (OSError, TypeError):
            source = ""
        # The qualified name without the module: a helper moved to another registry file is
        # the same helper.
        parts = [f"code:{getattr(obj, '__qualname__', '?')}:{source}".encode()]
        if isinstance(obj, types.FunctionType):
            parts.append(self.of(obj.__defaults__, depth + 1))
            parts.append(self.of(obj.__kwdefaults__, depth + 1))
            cells = [c.cell_contents for c in obj.__closure__ or () if _cell_is_set(c)]
            parts.append(self.of(cells, depth + 1))
            used = {n: obj.__globals__[n] for n in code_names(obj.__code__) if n in obj.__globals__}
            parts.append(self.of(used, depth + 1))
        return b"".join(parts)


def _cell_is_set(cell: types.CellType) -> bool:
    try:
        cell.cell_contents  # noqa: B018 - an empty cell raises
    except ValueError:
        return False
    return True


def _class_name(cls: type) -> str:
    return f"{getattr(cls, '__module__', '')}.{getattr(cls, '__qualname__', cls.__name__)}"


def _callable_name(obj: Any) -> str:
    module = getattr(obj, "__module__", None) or getattr(type(obj), "__module__", "")
    return f"{module}.{getattr(obj, '__qualname__', getattr(obj, '__name__', type(obj).__name__))}"


def case_digests(cases: list[Case], library: str | None, by_bytes: bool = False) -> dict[str, str]:
    """Case name -> 16 hex digits of its target, method, inputs and keyword arguments.

    `by_bytes` reads every tensor by its bytes instead of its recipe: not a definition's identity
    but a check that the values a case hands the operator are the same on another machine."""
    digester = _Digester(library, by_bytes)
    out: dict[str, str] = {}
    for c in cases:
        parts = [c.target, c.method, list(c.inputs), c.kwargs]
        out[c.name] = hashlib.sha256(b"".join(digester.of(p) for p in parts)).hexdigest()[:16]
    return out

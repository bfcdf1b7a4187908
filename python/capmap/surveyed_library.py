"""Which library a process surveys: the package its registry names with `library(...)`.

Every case is attributed to that package, whatever its target is: a lambda or helper of the
registry, a bound method, a method-wrapper, a torch container the library built, a deferred
factory such as `getattr`. Its executed files (`files`) and failure frames are the library's.
A registry that does not call `library(...)` surveys the one third-party package its cases come
from (`infer`: their targets, what a lambda or wrapper of the registry calls, deferred factories,
objects among the inputs), exactly as if it had named it, and a run says which in one line. When
no package or several alike are found, or the registry names a package it did not import (the
bundled example, a test registry named after itself), the older rule stays: the top-level
package, or single-file module, that defines the case's target.
"""

from __future__ import annotations

import functools
import importlib.util
import inspect
import os
import sys
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from types import (
    BuiltinFunctionType,
    CodeType,
    FunctionType,
    MethodType,
    MethodWrapperType,
    ModuleType,
)
from typing import Any

from capmap.errors import LibraryRoot, library_root

_declared: list[str] = []


def survey(name: str | None) -> None:
    """Records the library the registry just loaded names (None or "": it named none)."""
    _declared[:] = [name] if name else []


def declared() -> str | None:
    return _declared[0] if _declared else None


def named_root(name: str, *, find: bool = False) -> LibraryRoot | None:
    """The folder of the top-level package `name` (or the file of a single-file module) as
    imported; with `find`, else where the import system would find it (without importing it).
    None when there is none."""
    if "." in name or not name:
        return None
    module = sys.modules.get(name)
    origin = getattr(module, "__file__", None) if module is not None else None
    if not origin and not find:
        return None
    if not origin:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            spec = None
        if spec is None or not spec.origin or spec.origin in ("built-in", "frozen"):
            return None
        origin = spec.origin
    origin = os.path.abspath(origin)
    if os.path.basename(origin) == "__init__.py":
        folder = os.path.dirname(origin)
        return LibraryRoot(root=folder, base=os.path.dirname(folder))
    return LibraryRoot(root=origin, base=os.path.dirname(origin))


def root_for(target: Any) -> LibraryRoot | None:
    """The surveyed library's root when the registry named a package it imported, else the
    package that defines `target` (a deferred target's factory). A name that is merely findable
    does not count: it may be an unrelated package that happens to share the name."""
    name = declared()
    found = named_root(name) if name else None
    return found if found is not None else library_root(target)


# Top-level packages that are never the surveyed library: the platform every registry calls.
_PLATFORM = frozenset({"torch", "functorch", "numpy", "capmap", "builtins", "__main__"})
# How much of one case the inference looks at: enough for a lambda, a wrapper module or a
# deferred factory, bounded so that a registry of large object graphs still loads at once.
_VISITS_PER_CASE = 400
_ITEMS_PER_CONTAINER = 64


@dataclass(frozen=True)
class Inference:
    """The library a registry that names none surveys: `library`, or None; `candidates` are the
    top-level packages the cases come from, each with how many cases, most first."""

    library: str | None
    candidates: tuple[tuple[str, int], ...]


class _Registry:
    """What counts as the registry's own code: its modules (and a package registry's submodules)
    and the single-file modules beside a registry file (helpers it imports)."""

    def __init__(self, modules: Iterable[ModuleType]) -> None:
        self.names: set[str] = set()
        self.folders: set[str] = set()
        for module in modules:
            self.names.add(module.__name__)
            file = getattr(module, "__file__", None)
            if file and not hasattr(module, "__path__"):
                self.folders.add(os.path.dirname(os.path.abspath(file)))

    def owns(self, module_name: str) -> bool:
        if not module_name:
            return False
        if module_name in self.names or any(module_name.startswith(n + ".") for n in self.names):
            return True
        if "." in module_name:
            return False
        file = getattr(sys.modules.get(module_name), "__file__", None)
        if not isinstance(file, str) or os.path.basename(file) == "__init__.py":
            return False
        return os.path.dirname(os.path.abspath(file)) in self.folders


def _candidate(top: str, registry: _Registry) -> bool:
    if not top or top.startswith("_") or top in _PLATFORM or top in _STDLIB or registry.owns(top):
        return False
    return named_root(top) is not None


_STDLIB = frozenset(getattr(sys, "stdlib_module_names", ()))


class _Walk:
    """The top-level packages one case's objects come from, following the registry's own
    functions and classes (a lambda, a wrapper, a helper) into the names their code uses."""

    def __init__(self, registry: _Registry) -> None:
        self.registry = registry
        self.found: set[str] = set()
        self.seen: set[int] = set()
        self.left = _VISITS_PER_CASE

    def module(self, name: str) -> None:
        top = (name or "").split(".", 1)[0]
        if _candidate(top, self.registry):
            self.found.add(top)

    def visit(self, obj: Any) -> None:
        from capmap.deferred import Deferred

        if obj is None or isinstance(obj, (bool, int, float, complex, str, bytes)):
            return
        if id(obj) in self.seen or self.left <= 0:
            return
        self.seen.add(id(obj))
        self.left -= 1
        if isinstance(obj, Deferred):
            self.many([obj.factory, *obj.args, *obj.kwargs.values()])
        elif isinstance(obj, functools.partial):
            self.many([obj.func, *obj.args, *obj.keywords.values()])
        elif isinstance(obj, (list, tuple, set, frozenset)):
            self.many(list(obj)[:_ITEMS_PER_CONTAINER])
        elif isinstance(obj, dict):
            self.many(list(obj.values())[:_ITEMS_PER_CONTAINER])
        elif isinstance(obj, ModuleType):
            self.module(obj.__name__)
        elif isinstance(obj, MethodType):
            self.many([obj.__func__, obj.__self__])
        elif isinstance(obj, FunctionType):
            if self.registry.owns(obj.__module__ or ""):
                self.code(obj)
            else:
                self.module(obj.__module__ or "")
        elif isinstance(obj, type):
            if self.registry.owns(obj.__module__ or ""):
                self.many([*vars(obj).values(), *obj.__bases__])
            else:
                self.module(obj.__module__ or "")
        elif isinstance(obj, (BuiltinFunctionType, MethodWrapperType)) or inspect.ismethoddescriptor(obj):
            owner = getattr(obj, "__self__", None) or getattr(obj, "__objclass__", None)
            if isinstance(owner, ModuleType):
                self.module(owner.__name__)
            elif owner is not None:
                self.visit(owner)
            else:
                self.module(getattr(obj, "__module__", "") or "")
        elif isinstance(obj, (staticmethod, classmethod)):
            self.visit(obj.__func__)
        elif isinstance(obj, property):
            self.many([obj.fget, obj.fset])
        else:
            kind = type(obj)
            self.visit(kind)
            children = getattr(obj, "modules", None)
            torch = sys.modules.get("torch")
            if torch is not None and isinstance(obj, torch.nn.Module) and callable(children):
                # A container (a Sequential torch built) of the library's modules.
                self.many([type(child) for child in list(children())[:_ITEMS_PER_CONTAINER]])
            elif self.registry.owns(kind.__module__ or ""):
                self.many(list(getattr(obj, "__dict__", {}).values())[:_ITEMS_PER_CONTAINER])

    def many(self, objects: Iterable[Any]) -> None:
        for obj in objects:
            self.visit(obj)

    def code(self, fn: FunctionType) -> None:
        """A registry function: the globals its code (and the code nested in it) names, an
        attribute it names of a module of the registry, its closure and its defaults."""
        names = code_names(fn.__code__)
        used: list[Any] = []
        for name in names:
            if name in fn.__globals__:
                value = fn.__globals__[name]
                used.append(value)
                if isinstance(value, ModuleType) and self.registry.owns(value.__name__):
                    # `helpers.blur(x)`: the helper, from a module of the registry.
                    used.extend(vars(value)[n] for n in names if n in vars(value))
        cells = []
        for cell in fn.__closure__ or ():
            try:
                cells.append(cell.cell_contents)
            except ValueError:  # an empty cell
                pass
        self.many([*used, *cells, *(fn.__defaults__ or ()), *(fn.__kwdefaults__ or {}).values()])


def code_names(code: CodeType) -> list[str]:
    """The names a function and the functions nested in it (lambdas, comprehensions) use."""
    names = list(code.co_names)
    for const in code.co_consts:
        if isinstance(const, CodeType):
            names.extend(code_names(const))
    return sorted(set(names))


def infer(cases: Iterable[Any], registry_modules: Iterable[ModuleType]) -> Inference:
    """The library of a registry that names none: the one third-party top-level package that
    more of its cases come from than any other (their targets, what a lambda or wrapper of the
    registry calls, deferred factories, the objects among the inputs, the names they `covers`).
    torch, numpy, capmap, the standard library and the registry's own modules never count. None
    when no package or several tie."""
    registry = _Registry(registry_modules)
    counts: Counter[str] = Counter()
    for case in cases:
        walk = _Walk(registry)
        walk.many([case.target, *case.inputs, *case.kwargs.values()])
        for dotted in case.covers:
            walk.module(dotted)
        counts.update(walk.found)
    ranked = tuple(sorted(counts.items(), key=lambda item: (-item[1], item[0])))
    leads = bool(ranked) and (len(ranked) == 1 or ranked[0][1] > ranked[1][1])
    return Inference(ranked[0][0] if leads else None, ranked)


def inference_note(registries: list[str], inference: Inference) -> str:
    """The one line a run prints about a registry that names no library."""
    where = ", ".join(registries)
    if inference.library is not None:
        name = inference.library
        return (
            f"capmap: registry {where} names no library; surveying '{name}' (inferred from the "
            f'cases\' targets); add capmap.library("{name}") to the registry to say so'
        )
    fallback = (
        "each case's files are those of the package that defines its target (a lambda's: the "
        'registry\'s own file); add capmap.library("PACKAGE") to the registry to name its library'
    )
    if not inference.candidates:
        return (
            f"capmap: registry {where} names no library and none could be inferred (its cases call "
            f"no package but torch, numpy and the standard library); {fallback}"
        )
    top = inference.candidates[0][1]
    tied = ", ".join(repr(name) for name, count in inference.candidates if count == top)
    return (
        f"capmap: registry {where} names no library and none could be inferred (its cases come "
        f"from {tied} alike); {fallback}"
    )

"""The public callables of a library: every function or class it defines that its public API
exposes, with each public name it is reachable under."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import warnings
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any


@dataclass
class PublicCallable:
    """One library object with every public dotted name it is reachable under."""

    obj: Any
    names: list[str] = field(default_factory=list)

    @property
    def canonical(self) -> str:
        # The shortest public name is the one users type (kornia.color.rgb_to_gray).
        return min(self.names, key=lambda n: (n.count("."), len(n), n))

    @property
    def module(self) -> str:
        return self.canonical.rsplit(".", 1)[0]


def is_private(name: str) -> bool:
    return any(part.startswith("_") for part in name.split("."))


def _public_names(module: ModuleType) -> list[str]:
    listed = getattr(module, "__all__", None)
    if listed is not None:
        return [str(n) for n in listed]
    return [n for n in dir(module) if not n.startswith("_")]


def belongs(obj: Any, root: str) -> bool:
    owner = getattr(obj, "__module__", None) or ""
    return owner == root or owner.startswith(root + ".")


def _is_operator_like(obj: Any) -> bool:
    return (
        inspect.isfunction(obj)
        or inspect.isclass(obj)
        or inspect.isbuiltin(obj)
        or (callable(obj) and not inspect.ismodule(obj))
    )


def public_callables(root: str) -> list[PublicCallable]:
    """Every callable defined by `root` that its public API exposes, aliases merged."""
    top = importlib.import_module(root)
    found: dict[int, PublicCallable] = {}
    order: list[int] = []
    seen_modules: set[str] = set()

    def walk(module: ModuleType, dotted: str) -> None:
        if dotted in seen_modules:
            return
        seen_modules.add(dotted)
        has_all = getattr(module, "__all__", None) is not None
        sources: set[str] = set()  # modules defining what the list names
        for name in _public_names(module):
            if name.startswith("_"):
                continue
            try:
                value = getattr(module, name)
            except AttributeError:
                continue  # __all__ naming something that is not there is the library's problem
            full = f"{dotted}.{name}"
            sources.add(str(getattr(value, "__module__", "") or ""))
            if inspect.ismodule(value):
                sub = value.__name__
                # Follow subpackages and modules the API lists; a module attribute that merely
                # happens to be imported (a helper file) is not public API.
                listed = has_all or hasattr(value, "__path__") or sub == full
                if sub.startswith(root + ".") and not is_private(sub) and listed:
                    walk(value, sub)
                continue
            if not belongs(value, root) or not _is_operator_like(value):
                continue
            key = id(value)
            if key not in found:
                found[key] = PublicCallable(obj=value)
                order.append(key)
            if full not in found[key].names:
                found[key].names.append(full)
        # The library's own subpackages are public even when its top level does not import
        # them (kornia.utils), and so are the modules of a package without `__all__` (its
        # folder is its API: kornia.models.sam), whether or not something imported them yet.
        # Below a package with `__all__`, only what the API lists counts, and the subpackages
        # with an `__all__` of their own that the list draws from: the package gathers its API
        # from them, and users import from them by that path too (torchmetrics.functional lists
        # `accuracy`; `from torchmetrics.functional.classification import binary_accuracy`).
        listed_only = module is not top and has_all
        for info in pkgutil.iter_modules(getattr(module, "__path__", [])):
            if info.name.startswith("_") or ((module is top or listed_only) and not info.ispkg):
                continue
            try:
                sub_module = importlib.import_module(f"{dotted}.{info.name}")
            except Exception:  # noqa: BLE001 - optional extras missing: not reachable by users either
                continue
            name = sub_module.__name__
            drawn = any(m == name or m.startswith(name + ".") for m in sources)
            if listed_only and (getattr(sub_module, "__all__", None) is None or not drawn):
                continue
            walk(sub_module, sub_module.__name__)

    # Deprecated shim modules warn on attribute access; walking them is not using them.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        walk(top, root)
    return [found[k] for k in order]


def is_deprecated_alias(pc: PublicCallable) -> bool:
    """Whether a public name binds a private object of a private module: a wrapper the library
    keeps so that an old import still works (it warns, then calls the operator's new home)."""
    name = str(getattr(pc.obj, "__name__", "") or "")
    module = str(getattr(pc.obj, "__module__", "") or "")
    return name.startswith("_") and is_private(module)

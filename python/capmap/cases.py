"""The case API: registry files call `case(...)` at import time."""

from __future__ import annotations

import inspect
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from capmap.deferred import Deferred, resolve


class RegistryError(Exception):
    """A problem in a registry file; the message names the file and the problem."""


@dataclass
class Case:
    name: str
    group: str
    target: Any
    inputs: list[Any]
    kwargs: dict[str, Any] = field(default_factory=dict)
    note: str = ""
    check: bool = True
    atol: float = 2e-4
    rtol: float = 1e-3
    skip: str | None = None
    tags: tuple[str, ...] = ()
    method: str | None = None
    where: str = ""
    # Dotted public names the case exercises when its target does not say (a lambda, a helper).
    covers: tuple[str, ...] = ()
    # False: capture paths get the case's own inputs and result, library objects and all.
    flatten: bool = True
    # Why the case captures as a constant by design (a kernel getter taking integers), or None.
    constant: str | None = None
    # Why the case's outputs are all empty by design (a matcher with random weights), or None.
    empty: str | None = None

    @property
    def operator(self) -> str:
        return self.name.split("[", 1)[0]

    @property
    def variant(self) -> str:
        if "[" in self.name and self.name.endswith("]"):
            return self.name.split("[", 1)[1][:-1]
        return ""

    @property
    def package(self) -> str:
        return self.group.split(".", 1)[0]

    @property
    def section(self) -> str:
        parts = self.group.split(".", 1)
        return parts[1] if len(parts) > 1 else ""

    @property
    def ref(self) -> str:
        if self.covers:
            return self.covers[0]
        return public_name(self.target)

    def resolved(self) -> Case:
        """This case with its deferred target and inputs built (in the process that runs it)."""
        values = [self.target, *self.inputs, *self.kwargs.values()]
        if not any(isinstance(v, Deferred) for v in values):
            return self
        return replace(
            self,
            target=resolve(self.target),
            inputs=[resolve(v) for v in self.inputs],
            kwargs={k: resolve(v) for k, v in self.kwargs.items()},
        )

    def callable(self) -> Callable[..., Any]:
        """What a probe calls: the function, or the module (or its `method`) with kwargs bound."""
        fn: Callable[..., Any] = getattr(self.target, self.method) if self.method else self.target
        if not self.kwargs:
            return fn
        kwargs = self.kwargs

        def bound(*args: Any) -> Any:
            return fn(*args, **kwargs)

        return bound

    def inventory(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "operator": self.operator,
            "variant": self.variant,
            "group": self.group,
            "package": self.package,
            "section": self.section,
            "note": self.note,
            "ref": self.ref,
            "where": self.where,
            "tags": list(self.tags),
            "skip": self.skip,
            "check": self.check,
            "atol": self.atol,
            "rtol": self.rtol,
            # Only when off, so that the inventory of every other case stays as it was.
            **({} if self.flatten else {"flatten": False}),
            **({"constant": self.constant} if self.constant else {}),
            **({"empty": self.empty} if self.empty else {}),
        }


@dataclass
class Exclusion:
    name: str
    reason: str
    where: str = ""


def public_name(target: Any) -> str:
    """Dotted public name of a function, class, or a module instance's class."""
    obj = target.factory if isinstance(target, Deferred) else target
    if inspect.ismethod(obj):
        # A bound method (a classmethod taken from its class): name the function it wraps.
        obj = obj.__func__
    if not (inspect.isfunction(obj) or inspect.isclass(obj) or inspect.isbuiltin(obj)):
        obj = type(target)
    module = getattr(obj, "__module__", "") or ""
    if inspect.isbuiltin(obj):
        # torch's C functions (torch.matmul) name internal modules; name them where users find them.
        import torch

        name = getattr(obj, "__name__", "")
        for space in (torch, torch.nn.functional, torch.linalg, torch.fft, torch.special):
            if getattr(space, name, None) is obj:
                return f"{space.__name__}.{name}"
    qual = getattr(obj, "__qualname__", getattr(obj, "__name__", repr(obj)))
    return f"{module}.{qual}" if module else qual


# The cases and exclusions collected while registries import. The loader swaps
# these per load so that tests can load several registries in one process.
_collected: list[Case] = []
_excluded: list[Exclusion] = []
_library: dict[str, str] = {}


def _caller_where() -> str:
    # sys._getframe, not inspect.stack(): the latter reads source for every frame and made
    # importing a registry of a thousand cases take minutes.
    frame = sys._getframe(2)
    # A registry helper (a function that calls case(), in the same file or in another module of
    # the registry's folder) reports the line of the statement in the registry file that called
    # it, which is the line a reader looks for. The import machinery between two registry
    # modules lies outside the folder, so one module importing another does not chain them.
    folder = os.path.dirname(frame.f_code.co_filename)
    outer = frame.f_back
    while outer is not None and os.path.dirname(outer.f_code.co_filename) == folder:
        frame, outer = outer, outer.f_back
    return f"{_display_path(frame.f_code.co_filename)}:{frame.f_lineno}"


def _display_path(path: str) -> str:
    """Relative to the working folder when inside it, else to the import root that holds it
    (an installed registry shows as capmap/registries/kornia/color.py, not ../../usr/lib/...)."""
    absolute = os.path.abspath(path)
    cwd = os.getcwd()
    if absolute.startswith(cwd + os.sep):
        return os.path.relpath(absolute, cwd)
    roots = [os.path.abspath(p) for p in sys.path if p]
    best = max((r for r in roots if absolute.startswith(r + os.sep)), key=len, default=None)
    return os.path.relpath(absolute, best) if best else absolute


def case(
    name: str,
    group: str,
    target: Any,
    inputs: Sequence[Any],
    kwargs: dict[str, Any] | None = None,
    *,
    note: str = "",
    check: bool = True,
    atol: float = 2e-4,
    rtol: float = 1e-3,
    skip: str | None = None,
    tags: Sequence[str] = (),
    method: str | None = None,
    flatten: bool = True,
    covers: str | Sequence[str] = (),
    constant: str | None = None,
    empty: str | None = None,
) -> Case:
    """Register one case. Modules are put in eval mode. The graph inputs are the tensors inside
    `inputs` and the outputs the tensors inside the result; `flatten=False` captures the case's
    own inputs and result instead (library objects and all). `covers` names the public
    callables or methods the case exercises ("kornia.geometry.liegroup.So3.inverse") when the
    target cannot say it (a lambda); the first one is the case's `ref`. `constant="why"` declares
    that no input reaches the graph by design (a kernel built from integers): its cells are
    still `constant`, never `ok`, and registry checks accept them. `empty="why"` declares that
    every output is empty with these inputs (no match among random weights), which registry
    checks otherwise reject: a probe of empty tensors tests nothing. A case with `skip="why"`
    runs nothing and may name no target (`None`): an enum or a type alias listed with its reason."""
    where = _caller_where()
    if not isinstance(name, str) or not name:
        raise RegistryError(f"{where}: case name must be a non-empty string")
    if not isinstance(group, str) or not group or any(not p for p in group.split(".")):
        raise RegistryError(f"{where}: case {name!r}: group must be dotted like 'geometry.epipolar'")
    if "[" in name and not name.endswith("]"):
        raise RegistryError(f"{where}: case {name!r}: variants are written op[variant]")
    # A skipped case runs nothing, so it may name no target (an enum or a type alias listed
    # with its reason, as Kornia's own case files do); every other case needs one.
    if not (target is None and skip):
        _check_target_and_inputs(where, name, target, inputs, kwargs, method)
    if hasattr(target, "eval") and callable(target.eval) and hasattr(target, "training"):
        target.eval()
    # A deferred class call is checked against its class; a deferred factory function can't be.
    owner = target.factory if isinstance(target, Deferred) else target
    checkable = not isinstance(target, Deferred) or inspect.isclass(owner)
    if method is not None and checkable and not callable(getattr(owner, method, None)):
        raise RegistryError(f"{where}: case {name!r}: target has no method {method!r}")
    covered = (covers,) if isinstance(covers, str) else tuple(covers)
    for dotted in covered:
        if not isinstance(dotted, str) or "." not in dotted or any(not p for p in dotted.split(".")):
            raise RegistryError(f"{where}: case {name!r}: covers must be dotted public names, got {dotted!r}")
    c = Case(
        name=name,
        group=group,
        target=target,
        inputs=list(inputs),
        kwargs=dict(kwargs or {}),
        note=note,
        check=check,
        atol=atol,
        rtol=rtol,
        skip=skip,
        tags=tuple(tags),
        method=method,
        where=where,
        flatten=bool(flatten),
        covers=covered,
        constant=constant or None,
        empty=empty or None,
    )
    _collected.append(c)
    return c


def _check_target_and_inputs(
    where: str, name: str, target: Any, inputs: Any, kwargs: Any, method: str | None
) -> None:
    """Mistakes a registry author makes on day one, refused when the registry loads instead of
    stored as the case's eager failure ("'str' object is not callable")."""
    if isinstance(inputs, (str, bytes, dict)) or not isinstance(inputs, Sequence):
        kind = type(inputs).__name__
        hint = ": write [x] for one tensor argument" if hasattr(inputs, "shape") else ""
        raise RegistryError(f"{where}: case {name!r}: inputs must be a list of arguments, got a {kind}{hint}")
    if kwargs is not None and not isinstance(kwargs, dict):
        raise RegistryError(f"{where}: case {name!r}: kwargs must be a dict, got a {type(kwargs).__name__}")
    if method is None and not isinstance(target, Deferred) and not callable(target):
        raise RegistryError(
            f"{where}: case {name!r}: target must be callable (a function, a class or an nn.Module), "
            f"got a {type(target).__name__}"
        )


def exclude(name: str, reason: str) -> Exclusion:
    """Declare a public name that is not an operator (constant, enum, I/O helper...)."""
    if not reason:
        raise RegistryError(f"{_caller_where()}: exclude({name!r}) needs a reason")
    e = Exclusion(name=name, reason=reason, where=_caller_where())
    _excluded.append(e)
    return e


def library(name: str, *, source_url: str = "", docs_url: str = "") -> None:
    """Name the library a registry probes and, optionally, URL templates for the page.

    `source_url` takes `{revision}`, `{path}` and `{line}`; `docs_url` takes `{ref}`.
    """
    _library.update({"name": name, "source_url": source_url, "docs_url": docs_url})

"""Which public callables and methods the registry's cases and exclusions cover: `measure`."""

from __future__ import annotations

import fnmatch
import importlib
import inspect
from collections import Counter, defaultdict
from typing import Any

from capmap import registry as _registry
from capmap.cases import RegistryError
from capmap.coverage.callables import belongs, is_deprecated_alias, is_private, public_callables
from capmap.coverage.methods import member_key, public_methods
from capmap.coverage.report import CoverageReport
from capmap.deferred import Deferred


def _resolve_member(dotted: str) -> int | None:
    """id of the function behind a dotted `...Class.attr` name, or None."""
    owner_name, _, attr = dotted.rpartition(".")
    owner = resolve(owner_name) if owner_name else None
    return member_key(owner, attr) if inspect.isclass(owner) else None


def _is_pattern(exclusion: str) -> bool:
    return "*" in exclusion or "?" in exclusion


def excluded_by(name: str, exclusion: str) -> bool:
    """Whether an `exclude(...)` entry names `name`: the name itself, a module or class above
    it, or a shell-style pattern (`kornia.augmentation.*.apply_transform`)."""
    if _is_pattern(exclusion):
        return fnmatch.fnmatchcase(name, exclusion)
    return name == exclusion or name.startswith(exclusion + ".")


def resolve(dotted: str) -> Any:
    """The object a dotted name denotes (module path, then attributes), or None."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj: Any = importlib.import_module(".".join(parts[:cut]))
        except Exception:  # noqa: BLE001 - any import failure means "not this split"
            continue
        try:
            for attr in parts[cut:]:
                obj = getattr(obj, attr)
        except AttributeError:
            return None
        return obj
    return None


def _library_of_cases(reg: _registry.Registry) -> str:
    """The top-level package most case targets come from (a registry module loaded on its own
    after its package was imported has not called capmap.library again)."""
    roots = Counter(c.ref.split(".", 1)[0] for c in reg.cases)
    return roots.most_common(1)[0][0] if roots else ""


def measure(reg: _registry.Registry) -> CoverageReport:
    root = reg.library.get("name") or _library_of_cases(reg)
    if not root:
        raise RegistryError("registry does not name its library (capmap.library(...)) and has no cases")
    callables = public_callables(root)
    deprecated = sorted(c.canonical for c in callables if is_deprecated_alias(c))
    callables = [c for c in callables if not is_deprecated_alias(c)]
    methods = public_methods(root, callables)
    ids = {id(c.obj) for c in callables}
    method_ids = {id(m.func) for m in methods}
    by_case: dict[int, list[str]] = defaultdict(list)
    methods_by_case: dict[int, list[str]] = defaultdict(list)
    stray: list[dict[str, str]] = []
    unlisted: list[dict[str, str]] = []
    for c in reg.cases:
        hits, method_hits = _case_covers(c, ids, method_ids)
        for key in hits:
            by_case[key].append(c.name)
        for key in method_hits:
            methods_by_case[key].append(c.name)
        if not hits and not method_hits:
            entry = {"case": c.name, "ref": c.ref, "where": c.where}
            (unlisted if _unlisted(c.ref, root) else stray).append(entry)
    by_exclusion: dict[int, str] = {}
    for e in reg.excludes:
        # An exclusion names one public name, a module or class above it, or a pattern.
        for pc in callables:
            if any(excluded_by(n, e.name) for n in pc.names):
                by_exclusion.setdefault(id(pc.obj), e.reason)
    methods_by_exclusion: dict[int, str] = {}
    for m in methods:
        # An exclusion that names the method (or a pattern that matches it) leaves the function
        # out wherever it is inherited; one that names a class or module leaves out what that
        # class exposes, so a method inherited by several public classes is left out only when
        # all of them are.
        direct = next(
            (
                e.reason
                for e in reg.excludes
                for n in m.names
                if n == e.name or (_is_pattern(e.name) and excluded_by(n, e.name))
            ),
            None,
        )
        reasons = [
            by_exclusion.get(owner_id)
            or next((e.reason for e in reg.excludes for n in names if excluded_by(n, e.name)), None)
            for owner_id, names in m.owners.items()
        ]
        if direct is not None:
            methods_by_exclusion[id(m.func)] = direct
        elif reasons and all(reasons):
            methods_by_exclusion[id(m.func)] = str(reasons[0])
    version = str(getattr(importlib.import_module(root), "__version__", ""))
    return CoverageReport(
        root,
        version,
        callables,
        dict(by_case),
        by_exclusion,
        stray,
        methods,
        dict(methods_by_case),
        methods_by_exclusion,
        unlisted,
        deprecated,
    )


def _unlisted(ref: str, root: str) -> bool:
    """Whether `ref` names an object of the library at a path without private parts, one that
    the public API walk does not reach."""
    if is_private(ref) or not ref.startswith(root + "."):
        return False
    obj = resolve(ref)
    if obj is None:
        return False
    if isinstance(obj, property):
        obj = obj.fget
    return belongs(obj, root) or belongs(type(obj), root)


def _case_covers(c: Any, ids: set[int], method_ids: set[int]) -> tuple[set[int], set[int]]:
    """(public callables, methods) a case exercises: its `covers` names, else its target (a
    function, a class, a module instance, a bound method) and `method`."""
    hits: set[int] = set()
    method_hits: set[int] = set()

    def add_object(obj: Any) -> None:
        if obj is None:
            return
        if inspect.ismethod(obj):
            obj = obj.__func__
        if id(obj) in ids:
            hits.add(id(obj))
        if id(obj) in method_ids:
            method_hits.add(id(obj))

    if c.covers:
        for dotted in c.covers:
            add_object(resolve(dotted))
            key = _resolve_member(dotted)
            if key in method_ids:
                method_hits.add(key)
            owner = resolve(dotted.rpartition(".")[0])
            if inspect.isclass(owner) and id(owner) in ids:
                # As with `method`, the class a member case exercises is covered as a name.
                hits.add(id(owner))
        return hits, method_hits
    # A deferred target covers what its factory names (its class), without being built.
    target = c.target.factory if isinstance(c.target, Deferred) else c.target
    if inspect.isfunction(target) or inspect.isclass(target) or inspect.ismethod(target):
        add_object(target)
    if not hits and not method_hits:
        add_object(resolve(c.ref))
    if c.method:
        key = member_key(target, c.method)
        if key in method_ids:
            method_hits.add(key)
        # The class a method case probes is covered as a name too.
        add_object(target if inspect.isclass(target) else type(target))
    return hits, method_hits

"""How much of a library's public API the registry covers.

`python -m capmap.coverage [REGISTRY...] [--fail-under P] [--json]` walks the probed library's
public API, collects every public callable (function or class defined by the library) and every
public method of those classes, and checks each against the registry's cases and exclusions.
One object reachable under several public names counts once and is covered when any of its
names is. Names and methods are reported as two figures.
"""

from __future__ import annotations

import argparse
import dis
import enum
import fnmatch
import importlib
import inspect
import json
import os
import pkgutil
import sys
import warnings
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from capmap import registry as _registry
from capmap.cases import RegistryError
from capmap.deferred import Deferred


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


@dataclass
class CoverageReport:
    library: str
    version: str
    callables: list[PublicCallable]
    by_case: dict[int, list[str]]
    by_exclusion: dict[int, str]
    stray_cases: list[dict[str, str]]
    methods: list[PublicMethod] = field(default_factory=list)
    methods_by_case: dict[int, list[str]] = field(default_factory=dict)
    methods_by_exclusion: dict[int, str] = field(default_factory=dict)
    # Cases of library objects at public-looking paths that the API does not export
    # (kornia.feature.siftdesc.sift_describe): counted nowhere, and not mistakes either.
    unlisted_cases: list[dict[str, str]] = field(default_factory=list)
    # Public names bound to a private object of a private module (torchmetrics.functional.
    # image_gradients is torchmetrics.functional.image._deprecated._image_gradients): the
    # library's wrappers of deprecated imports, left out of both figures.
    deprecated: list[str] = field(default_factory=list)

    @property
    def total(self) -> int:
        return len(self.callables)

    @property
    def covered(self) -> int:
        return sum(1 for c in self.callables if id(c.obj) in self.by_case or id(c.obj) in self.by_exclusion)

    @property
    def percent(self) -> float:
        return round(100.0 * self.covered / self.total, 2) if self.total else 100.0

    def missing(self) -> dict[str, list[str]]:
        grouped: dict[str, list[str]] = defaultdict(list)
        for c in self.callables:
            if id(c.obj) not in self.by_case and id(c.obj) not in self.by_exclusion:
                grouped[c.module].append(c.canonical.rsplit(".", 1)[1])
        return {m: sorted(names) for m, names in sorted(grouped.items())}

    @property
    def methods_total(self) -> int:
        return len(self.methods)

    @property
    def methods_covered(self) -> int:
        return sum(1 for m in self.methods if self._method_done(m))

    @property
    def methods_percent(self) -> float:
        total = self.methods_total
        return round(100.0 * self.methods_covered / total, 2) if total else 100.0

    def _method_done(self, m: PublicMethod) -> bool:
        return id(m.func) in self.methods_by_case or id(m.func) in self.methods_by_exclusion

    def methods_missing(self) -> dict[str, list[str]]:
        """Uncovered methods grouped by the class that names them (its shortest public name)."""
        grouped: dict[str, list[str]] = defaultdict(list)
        for m in self.methods:
            if not self._method_done(m):
                grouped[m.owner].append(m.canonical.rsplit(".", 1)[1])
        return {owner: sorted(names) for owner, names in sorted(grouped.items())}

    def methods_json(self) -> dict[str, Any]:
        return {
            "covered": self.methods_covered,
            "total": self.methods_total,
            "percent": self.methods_percent,
            "by_cases": sum(1 for m in self.methods if id(m.func) in self.methods_by_case),
            "excluded": sum(
                1
                for m in self.methods
                if id(m.func) in self.methods_by_exclusion and id(m.func) not in self.methods_by_case
            ),
            "missing": self.methods_missing(),
        }

    def packages(self) -> dict[str, dict[str, int]]:
        """Covered and total names per top package (`torchmetrics.functional`)."""
        counts: dict[str, dict[str, int]] = {}
        for c in self.callables:
            entry = counts.setdefault(".".join(c.module.split(".")[:2]), {"covered": 0, "total": 0})
            entry["total"] += 1
            entry["covered"] += int(id(c.obj) in self.by_case or id(c.obj) in self.by_exclusion)
        return dict(sorted(counts.items()))

    def to_json(self) -> dict[str, Any]:
        return {
            "library": self.library,
            "version": self.version,
            "covered": self.covered,
            "total": self.total,
            "percent": self.percent,
            "by_cases": sum(1 for c in self.callables if id(c.obj) in self.by_case),
            "excluded": sum(
                1 for c in self.callables if id(c.obj) in self.by_exclusion and id(c.obj) not in self.by_case
            ),
            "missing": self.missing(),
            "stray_cases": self.stray_cases,
            "unlisted_cases": self.unlisted_cases,
            "deprecated": self.deprecated,
            "packages": self.packages(),
            "methods": self.methods_json(),
        }


def _is_private(name: str) -> bool:
    return any(part.startswith("_") for part in name.split("."))


def _public_names(module: ModuleType) -> list[str]:
    listed = getattr(module, "__all__", None)
    if listed is not None:
        return [str(n) for n in listed]
    return [n for n in dir(module) if not n.startswith("_")]


def _belongs(obj: Any, root: str) -> bool:
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
                if sub.startswith(root + ".") and not _is_private(sub) and listed:
                    walk(value, sub)
                continue
            if not _belongs(value, root) or not _is_operator_like(value):
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
    return name.startswith("_") and _is_private(module)


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
        if inspect.isclass(value) and _belongs(value, root):
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
            if not _belongs(klass, root):
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


def _member_key(owner: Any, attr: str) -> int | None:
    """id of the function behind `owner.attr` (owner a class or an instance), or None."""
    cls = owner if inspect.isclass(owner) else type(owner)
    got = _method_function(_raw_member(cls, attr))
    return id(got[0]) if got is not None else None


def _resolve_member(dotted: str) -> int | None:
    """id of the function behind a dotted `...Class.attr` name, or None."""
    owner_name, _, attr = dotted.rpartition(".")
    owner = resolve(owner_name) if owner_name else None
    return _member_key(owner, attr) if inspect.isclass(owner) else None


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
    if _is_private(ref) or not ref.startswith(root + "."):
        return False
    obj = resolve(ref)
    if obj is None:
        return False
    if isinstance(obj, property):
        obj = obj.fget
    return _belongs(obj, root) or _belongs(type(obj), root)


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
        key = _member_key(target, c.method)
        if key in method_ids:
            method_hits.add(key)
        # The class a method case probes is covered as a name too.
        add_object(target if inspect.isclass(target) else type(target))
    return hits, method_hits


def format_text(report: CoverageReport) -> str:
    data = report.to_json()
    methods = data["methods"]
    lines = [
        f"{report.library} {report.version}: {report.covered}/{report.total} public callables covered "
        f"({report.percent:.1f}%): {data['by_cases']} by cases, {data['excluded']} excluded",
        f"methods: {methods['covered']}/{methods['total']} public methods covered "
        f"({report.methods_percent:.1f}%): {methods['by_cases']} by cases, {methods['excluded']} excluded",
    ]
    missing = report.missing()
    if missing:
        count = sum(len(v) for v in missing.values())
        lines.append(f"missing ({count}):")
        for module, names in missing.items():
            lines.append(f"  {module}: {', '.join(names)}")
    if methods["missing"]:
        count = sum(len(v) for v in methods["missing"].values())
        lines.append(f"missing methods ({count}):")
        for owner, names in methods["missing"].items():
            lines.append(f"  {owner}: {', '.join(names)}")
    if report.deprecated:
        lines.append(
            f"left out: {len(report.deprecated)} deprecated aliases (public names of private wrappers "
            f"that warn and call the new home), e.g. {report.deprecated[0]}"
        )
    if report.unlisted_cases:
        count = len(report.unlisted_cases)
        lines.append(f"cases of {report.library} objects its public API does not export ({count}):")
        for s in report.unlisted_cases:
            lines.append(f"  {s['where']}: {s['case']} -> {s['ref']}")
    if report.stray_cases:
        lines.append(
            f"cases whose target is not a public callable of {report.library} ({len(report.stray_cases)}):"
        )
        for s in report.stray_cases:
            lines.append(f"  {s['where']}: {s['case']} -> {s['ref']}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="capmap coverage", description=__doc__.splitlines()[0])
    parser.add_argument("registries", nargs="*", help="registry files, folders or modules")
    parser.add_argument("--fail-under", type=float, default=None, metavar="PERCENT")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args(argv)
    try:
        reg = _registry.load(args.registries)
        report = measure(reg)
    except RegistryError as exc:
        print(f"capmap: {exc}", file=sys.stderr)
        return 2
    text = json.dumps(report.to_json(), indent=2, sort_keys=True) if args.json else format_text(report)
    try:
        print(text, flush=True)
    except BrokenPipeError:
        # A reader such as `head` went away; the verdict still goes out as the exit code.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    if args.fail_under is not None:
        # Both figures must reach the threshold.
        short = [
            f"{label} {percent:.1f}%"
            for label, percent in (("coverage", report.percent), ("method coverage", report.methods_percent))
            if percent < args.fail_under
        ]
        if short:
            if not args.json:
                print(f"{' and '.join(short)} under {args.fail_under:g}%", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

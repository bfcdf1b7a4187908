"""How much of a library's public API the registry covers.

`python -m capmap.coverage [REGISTRY...] [--fail-under P] [--json]` walks the probed library's
public API, collects every public callable (function or class defined by the library), and
checks each against the registry's cases and exclusions. One object reachable under several
public names counts once and is covered when any of its names is.
"""

from __future__ import annotations

import argparse
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


@dataclass
class CoverageReport:
    library: str
    version: str
    callables: list[PublicCallable]
    by_case: dict[int, list[str]]
    by_exclusion: dict[int, str]
    stray_cases: list[dict[str, str]]

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
        for name in _public_names(module):
            if name.startswith("_"):
                continue
            try:
                value = getattr(module, name)
            except AttributeError:
                continue  # __all__ naming something that is not there is the library's problem
            full = f"{dotted}.{name}"
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
        # them (kornia.utils); deeper down, only what the API exposes counts.
        if module is not top:
            return
        for info in pkgutil.iter_modules(getattr(module, "__path__", [])):
            if info.name.startswith("_") or not info.ispkg:
                continue
            try:
                sub_module = importlib.import_module(f"{dotted}.{info.name}")
            except Exception:  # noqa: BLE001 - optional extras missing: not reachable by users either
                continue
            walk(sub_module, sub_module.__name__)

    # Deprecated shim modules warn on attribute access; walking them is not using them.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        walk(top, root)
    return [found[k] for k in order]


def _resolve(dotted: str) -> Any:
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
    ids = {id(c.obj) for c in callables}
    by_case: dict[int, list[str]] = defaultdict(list)
    stray: list[dict[str, str]] = []
    for c in reg.cases:
        target = c.target if (inspect.isfunction(c.target) or inspect.isclass(c.target)) else None
        obj = target if target is not None and id(target) in ids else _resolve(c.ref)
        if obj is not None and id(obj) in ids:
            by_case[id(obj)].append(c.name)
        else:
            stray.append({"case": c.name, "ref": c.ref, "where": c.where})
    by_exclusion: dict[int, str] = {}
    for e in reg.excludes:
        # An exclusion names one public name, or a module whose callables are all excluded.
        for pc in callables:
            if any(n == e.name or n.startswith(e.name + ".") for n in pc.names):
                by_exclusion.setdefault(id(pc.obj), e.reason)
    version = str(getattr(importlib.import_module(root), "__version__", ""))
    return CoverageReport(root, version, callables, dict(by_case), by_exclusion, stray)


def format_text(report: CoverageReport) -> str:
    data = report.to_json()
    lines = [
        f"{report.library} {report.version}: {report.covered}/{report.total} public callables covered "
        f"({report.percent:.1f}%): {data['by_cases']} by cases, {data['excluded']} excluded"
    ]
    missing = report.missing()
    if missing:
        count = sum(len(v) for v in missing.values())
        lines.append(f"missing ({count}):")
        for module, names in missing.items():
            lines.append(f"  {module}: {', '.join(names)}")
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
    if args.fail_under is not None and report.percent < args.fail_under:
        if not args.json:
            print(f"coverage {report.percent:.1f}% is under {args.fail_under:g}%", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

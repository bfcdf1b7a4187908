"""The capture paths: every module of `capmap.probes` that defines `PATH`, and the modules named
in `CAPMAP_PATH_MODULES` (comma-separated importable names: a path kept outside capmap)."""

from __future__ import annotations

import functools
import importlib
import os
import pkgutil
from collections.abc import Iterable
from types import ModuleType
from typing import Any

from capmap.probes.path import CapturePath


@functools.cache
def _modules() -> dict[str, ModuleType]:
    import capmap.probes as package

    found: dict[str, ModuleType] = {}
    names = [f"{package.__name__}.{info.name}" for info in pkgutil.iter_modules(package.__path__)]
    extra = [n.strip() for n in os.environ.get("CAPMAP_PATH_MODULES", "").split(",") if n.strip()]
    for name in names + extra:
        module = importlib.import_module(name)
        spec = getattr(module, "PATH", None)
        if not isinstance(spec, CapturePath):
            if name in extra:
                raise RuntimeError(f"CAPMAP_PATH_MODULES: {name} defines no PATH = CapturePath(...)")
            continue  # a helper module (context, warmup ...)
        if spec.name in found:
            raise RuntimeError(f"capture path {spec.name!r} is declared by two modules")
        found[spec.name] = module
    return dict(sorted(found.items(), key=lambda item: (item[1].PATH.order, item[0])))


def paths() -> list[CapturePath]:
    """Every path in page order (eager first)."""
    return [m.PATH for m in _modules().values()]


def names() -> list[str]:
    return list(_modules())


def module(name: str) -> ModuleType:
    try:
        return _modules()[name]
    except KeyError:
        raise ValueError(f"unknown path {name!r}; known: {', '.join(names())}") from None


def capture_paths() -> list[str]:
    """Every path but the reference (eager), in page order: the paths a cell can fail on."""
    return [p.name for p in paths() if not p.reference]


def default_settings() -> dict[str, Any]:
    """Every path's settings with their defaults; two paths may share a setting, not its default."""
    merged: dict[str, Any] = {}
    owner: dict[str, str] = {}
    for path in paths():
        for key, value in path.settings.items():
            if key in merged and merged[key] != value:
                raise RuntimeError(
                    f"setting {key!r}: path {path.name!r} defaults it to {value!r}, "
                    f"path {owner[key]!r} to {merged[key]!r}"
                )
            merged[key], owner[key] = value, path.name
    return merged


def versioned_packages() -> list[str]:
    """torch, then every package a path depends on, in page order: what the run key records."""
    found = ["torch"]
    for path in paths():
        found += [p for p in path.packages if p not in found]
    return found


def default_paths() -> list[str]:
    return [p.name for p in paths() if p.default]


def run_order(wanted: Iterable[str]) -> list[str]:
    """The wanted paths in the order a task runs them: eager first, every other path after the
    wanted paths it builds on (so it can reuse their result), page order otherwise."""
    wanted_set = set(wanted)
    unknown = sorted(wanted_set - set(names()))
    if unknown:
        raise ValueError(f"unknown paths {unknown}; known: {', '.join(names())}")
    pending = [p for p in paths() if p.name in wanted_set]
    ordered: list[str] = []
    while pending:
        # The first path, in page order, whose wanted foundations already ran.
        ready = next(
            (p for p in pending if all(b in ordered or b not in wanted_set for b in p.builds_on)),
            pending[0],  # a cycle: declaration order decides
        )
        ordered.append(ready.name)
        pending.remove(ready)
    references = [n for n in ordered if module(n).PATH.reference]
    return references + [n for n in ordered if n not in references]


def announce() -> list[dict[str, Any]]:
    """The hello's `paths`: each path's declaration, in page order."""
    return [p.announce() for p in paths()]


def unavailable() -> dict[str, dict[str, Any]]:
    """The hello's `unavailable`: each path whose packages this environment lacks, with what is
    missing and the command that installs it, so that a run asking for it stops before any work."""
    found: dict[str, dict[str, Any]] = {}
    for path in paths():
        missing = path.missing_packages()
        if missing:
            found[path.name] = {"missing": missing, "install": path.install_hint(missing)}
    return found

"""Loads registries (.py files, folders of them, importable modules) into one list of cases."""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import sys
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from capmap import cases as _cases
from capmap import surveyed_library, tensor_recipes
from capmap.cases import Case, Exclusion, RegistryError
from capmap.random_state import start_random_state

DEFAULT_REGISTRY = "capmap.registries.kornia"

# What the last successful `load` was given: a fresh process that probes one case loads it too.
_loaded_specs: list[str] | None = None


@dataclass
class Registry:
    cases: list[Case] = field(default_factory=list)
    excludes: list[Exclusion] = field(default_factory=list)
    library: dict[str, str] = field(default_factory=dict)
    modules: list[ModuleType] = field(default_factory=list)
    # What a run says once about the registry (the library it inferred): one line each.
    notes: list[str] = field(default_factory=list)

    def by_name(self) -> dict[str, Case]:
        return {c.name: c for c in self.cases}


def _registry_root(origin: str) -> str:
    """The path prefix of a registry's own files: its file, or its package's folder."""
    path = origin.split(":")[0]
    if path.endswith(".py") or os.path.sep in path or os.path.exists(path):
        return os.path.abspath(path).rsplit(".py", 1)[0]
    try:
        spec = importlib.util.find_spec(path)
    except (ImportError, ValueError):
        spec = None
    if spec is not None and spec.submodule_search_locations:
        return os.path.abspath(list(spec.submodule_search_locations)[0]) + os.path.sep
    if spec is not None and spec.origin:
        return os.path.abspath(spec.origin).rsplit(".py", 1)[0]
    return os.path.abspath(path)


# The libraries of the bundled registries, each installed by capmap's extra of its name.
BUNDLED_LIBRARIES = frozenset({"kornia", "torchmetrics"})


def _import_error_line(origin: str, exc: BaseException) -> str:
    if isinstance(exc, RegistryError):
        return str(exc)
    if isinstance(exc, SyntaxError):
        return f"{exc.filename or origin}:{exc.lineno}: syntax error: {exc.msg}"
    # Name the innermost frame inside the registry so the user knows which line failed.
    where = origin
    root = _registry_root(origin)
    for frame in reversed(traceback.extract_tb(exc.__traceback__)):
        if frame.filename and os.path.abspath(frame.filename).startswith(root):
            where = f"{os.path.relpath(frame.filename)}:{frame.lineno}"
            break
    msg = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    if isinstance(exc, ModuleNotFoundError) and exc.name in BUNDLED_LIBRARIES:
        # A bundled registry's library comes with capmap's extra of the same name.
        msg += f" (this environment lacks it: pip install 'capmap[{exc.name}]')"
    return f"{where}: cannot import registry: {type(exc).__name__}: {msg}".rstrip(": ")


def _expand(spec: str) -> list[tuple[str, str]]:
    """(kind, target) pairs: ("file", path) or ("module", dotted name)."""
    p = Path(spec)
    if p.is_dir():
        files = sorted(f for f in p.rglob("*.py") if not f.name.startswith("_"))
        if not files:
            raise RegistryError(f"{spec}: no registry files (*.py) in this folder")
        return [("file", str(f)) for f in files]
    if spec.endswith(".py"):
        if not p.is_file():
            raise RegistryError(f"{spec}: no such registry file")
        return [("file", spec)]
    return [("module", spec)]


def _load_file(path: str) -> ModuleType:
    # A stable name (str hashes change per process): a case's `ref` must not change between runs.
    name = "capmap_registry_" + hashlib.sha256(os.path.abspath(path).encode()).hexdigest()[:16]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise RegistryError(f"{path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    # Let a registry import helpers that sit next to it.
    folder = str(Path(path).resolve().parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    spec.loader.exec_module(module)
    return module


def _forget_module(name: str) -> None:
    # Registries register cases as an import side effect, so a module imported
    # earlier in this process must run again to register its cases.
    for loaded in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
        del sys.modules[loaded]


def _load_module(name: str) -> list[ModuleType]:
    _forget_module(name)
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name and name.startswith(exc.name):
            raise RegistryError(
                f"{name}: no such registry (not a file, folder or importable module)"
            ) from exc
        raise
    loaded = [module]
    # A package registry may list its submodules in REGISTRY_MODULES.
    for sub in getattr(module, "REGISTRY_MODULES", []):
        loaded.append(importlib.import_module(f"{name}.{sub}"))
    return loaded


def load(specs: list[str]) -> Registry:
    """Import every registry; raise RegistryError with one clear line on any problem."""
    reg = Registry()
    saved = (_cases._collected, _cases._excluded, dict(_cases._library))
    _cases._collected, _cases._excluded = [], []
    _cases._library.clear()
    # A registry that draws from the global generators at import (`torch.randn(2, 8)`) draws
    # the same numbers on every import, and every tensor it makes is recorded by how it was
    # made: the identity its digest reads, the same on every machine (capmap.tensor_recipes).
    start_random_state()
    recorder = tensor_recipes.recording()
    recorder.__enter__()
    try:
        for spec in specs or [DEFAULT_REGISTRY]:
            for kind, target in _expand(spec):
                before = len(_cases._collected)
                try:
                    modules = [_load_file(target)] if kind == "file" else _load_module(target)
                except RegistryError:
                    raise
                except BaseException as exc:  # noqa: BLE001 - any import failure is the user's
                    raise RegistryError(_import_error_line(target, exc)) from exc
                for module in modules:
                    listed = getattr(module, "CASES", None)
                    if listed is not None:
                        # A CASES list is the registry: keep exactly what it holds.
                        del _cases._collected[before:]
                        for c in listed:
                            if not isinstance(c, Case):
                                raise RegistryError(
                                    f"{target}: CASES holds {type(c).__name__}, not a case(...)"
                                )
                            _cases._collected.append(c)
                        before = len(_cases._collected)
                reg.modules.extend(modules)
        reg.cases = list(_cases._collected)
        reg.excludes = list(_cases._excluded)
        reg.library = dict(_cases._library)
    finally:
        recorder.__exit__(None, None, None)
        _cases._collected, _cases._excluded = saved[0], saved[1]
        _cases._library.clear()
        _cases._library.update(saved[2])
    _check_unique(reg.cases)
    if not reg.library.get("name"):
        _infer_library(reg, list(specs or [DEFAULT_REGISTRY]))
    # The process probes what it loaded last: its cases are attributed to the library it names.
    surveyed_library.survey(reg.library.get("name"))
    global _loaded_specs
    _loaded_specs = list(specs or [DEFAULT_REGISTRY])
    return reg


def _infer_library(reg: Registry, specs: list[str]) -> None:
    """A registry that names no library surveys the one package its cases come from, exactly as
    if it had said `library(NAME)`; the note says which, or why none (then each case keeps the
    package that defines its target)."""
    found = surveyed_library.infer(reg.cases, reg.modules)
    if found.library is not None:
        reg.library = {"name": found.library, "source_url": "", "docs_url": ""}
    reg.notes.append(surveyed_library.inference_note(specs, found))


def forget_loaded() -> None:
    """Back to a fresh process's state: no registry loaded, no library surveyed (for a process that
    loads one registry after another, each to be probed as if alone)."""
    global _loaded_specs
    _loaded_specs = None
    surveyed_library.survey(None)


def loaded_specs() -> list[str] | None:
    """The registries the last successful `load` imported, as it was given them."""
    return None if _loaded_specs is None else list(_loaded_specs)


def _check_unique(found: list[Case]) -> None:
    seen: dict[str, Case] = {}
    for c in found:
        if c.name in seen:
            raise RegistryError(
                f"{c.where}: duplicate case name {c.name!r} (first defined at {seen[c.name].where})"
            )
        seen[c.name] = c


def inventory(reg: Registry) -> list[dict[str, Any]]:
    """Each case's inventory, with the digest of what it hands the operator (`inputs`) and where
    users import its operator from (`public_ref`)."""
    # Imported here: a repro script loads registries but may import only what it needs.
    from capmap.case_digest import case_digests
    from capmap.public_ref import public_ref

    digests = case_digests(reg.cases, reg.library.get("name"))
    entries = []
    for c in reg.cases:
        entry = {**c.inventory(), "inputs": digests[c.name]}
        # Asked here, where the library is imported: only its modules know what they export.
        if (public := public_ref(c.ref)) is not None:
            entry["public_ref"] = public
        entries.append(entry)
    return entries

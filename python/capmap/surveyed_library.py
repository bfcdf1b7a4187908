"""Which library a process surveys: the package its registry names with `library(...)`.

Every case is attributed to that package, whatever its target is: a lambda or helper of the
registry, a bound method, a method-wrapper, a torch container the library built, a deferred
factory such as `getattr`. Its executed files (`files`) and failure frames are the library's.
A registry that names no package it imported (the bundled example, a test registry named after
itself) keeps the older rule: the top-level package, or single-file module, that defines the
case's target.
"""

from __future__ import annotations

import importlib.util
import os
import sys
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

"""Which of the probed library's source files a case depends on, so a change can select it.

Two sources: the files whose code runs while the case's target is built and called (a trace),
and the files that define what the case names (its target's function or class with the classes
it derives from, the classes of a module's submodules, the public names it `covers`). The second
catches cases whose call runs no library line of its own: a `torch.nn.Sequential` subclass, a
dataclass whose `__init__` Python generated, a container a library function assembled.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import os
import sys
from collections.abc import Iterable, Iterator
from types import CodeType, FrameType, MethodWrapperType, TracebackType
from typing import Any

from capmap.errors import LibraryRoot

HASH_DIGITS = 16


def content_hash(path: str) -> str:
    """The first HASH_DIGITS hex digits of the file's SHA-256; empty when it cannot be read."""
    try:
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()[:HASH_DIGITS]
    except OSError:
        return ""


class LibraryFileTrace:
    """Records the library files whose code runs inside the `with` block (this thread only).

    A global trace function sees every Python frame start; it returns None, so no line of any
    frame is traced and the cost is one small call per function entered. The block may be
    entered again (building a deferred target, then the call): the files add up.
    """

    def __init__(self, root: LibraryRoot | None) -> None:
        self._root = root
        self._in_library: dict[str, bool] = {}
        self._previous: Any = None

    def _on_call(self, frame: FrameType, event: str, arg: Any) -> None:
        filename = frame.f_code.co_filename
        if filename not in self._in_library:
            self._in_library[filename] = self._root is not None and self._root.shows(filename)
        return None

    def __enter__(self) -> LibraryFileTrace:
        self._previous = sys.gettrace()
        sys.settrace(self._on_call)
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        sys.settrace(self._previous)

    def add_definitions(self, objects: Iterable[Any]) -> None:
        """Records the library files that define `objects` (see `defined_in`)."""
        try:
            found = defined_in(objects)
        except Exception:  # noqa: BLE001 - an object that cannot be looked into adds nothing
            return
        for filename in found:
            if filename not in self._in_library:
                self._in_library[filename] = self._root is not None and self._root.shows(filename)

    def files(self) -> dict[str, str]:
        """`{"pkg/path.py": content hash}`, paths relative to the folder above the library."""
        if self._root is None:
            return {}
        out: dict[str, str] = {}
        for filename, inside in self._in_library.items():
            if inside:
                path = os.path.relpath(os.path.abspath(filename), self._root.base).replace(os.sep, "/")
                out[path] = content_hash(filename)
        return dict(sorted(out.items()))


def named_objects(target: Any, names: Iterable[str]) -> list[Any]:
    """What a case names: its target, and each dotted public name that resolves in the modules
    already imported (a class attribute is taken as defined, so a property is not run)."""
    found = [target]
    for name in names:
        obj = resolve_name(name)
        if obj is not None:
            found.append(obj)
    return found


def resolve_name(dotted: str) -> Any:
    """`kornia.geometry.PinholeCamera.fx` → the property object; None when it does not resolve.
    Only modules already imported are looked in: resolving never imports."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        module = sys.modules.get(".".join(parts[:cut]))
        if module is None:
            continue
        obj: Any = module
        try:
            for part in parts[cut:]:
                obj = inspect.getattr_static(obj, part)
        except AttributeError:
            return None
        return obj
    return None


def defined_in(objects: Iterable[Any]) -> set[str]:
    """The source files that define each object: a function's code, a class and the classes it
    derives from, an instance's class, every submodule's class of an `nn.Module`, the function a
    bound method, property, partial or static/class method wraps."""
    files: set[str] = set()
    for obj in objects:
        for item in _definitions(obj):
            filename = _source_file(item)
            if filename:
                files.add(filename)
    return files


def _definitions(obj: Any) -> Iterator[Any]:
    seen: set[int] = set()
    pending = [obj]
    while pending:
        item = pending.pop()
        if id(item) in seen or item is None:
            continue
        seen.add(id(item))
        if isinstance(item, functools.partial):
            pending.append(item.func)
        elif isinstance(item, property):
            pending.extend((item.fget, item.fset))
        elif isinstance(item, (staticmethod, classmethod)) or inspect.ismethod(item):
            pending.append(item.__func__)
            if inspect.ismethod(item):
                pending.append(type(item.__self__) if not inspect.isclass(item.__self__) else item.__self__)
        elif inspect.isfunction(item):
            yield item
        elif inspect.isclass(item):
            yield from (c for c in item.__mro__ if c is not object)
        elif (
            inspect.isbuiltin(item) or isinstance(item, MethodWrapperType) or inspect.ismethoddescriptor(item)
        ):
            # `fn.__call__`, `obj.__add__`: what the wrapper is bound to, or the class it comes from.
            owner = getattr(item, "__self__", None) or getattr(item, "__objclass__", None)
            if owner is not None and not inspect.ismodule(owner):
                pending.append(owner)
        elif not inspect.ismodule(item):
            pending.append(type(item))
            children = getattr(item, "modules", None)
            if _is_torch_module(item) and callable(children):
                pending.extend(type(child) for child in children())


def _is_torch_module(obj: Any) -> bool:
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(obj, torch.nn.Module)


def _source_file(obj: Any) -> str | None:
    code = getattr(obj, "__code__", None)
    if isinstance(code, CodeType):
        return code.co_filename
    if inspect.isclass(obj):
        module = sys.modules.get(getattr(obj, "__module__", "") or "")
        return getattr(module, "__file__", None)
    return None


def current_hashes(library: str, paths: Iterable[str]) -> dict[str, str] | None:
    """`{"pkg/path.py": hash}` of the installed library's files now (empty: the file is gone),
    for paths recorded relative to the folder above it; None when the library cannot be found."""
    from capmap.surveyed_library import named_root

    root = named_root(library, find=True)
    if root is None:
        return None
    return {path: content_hash(os.path.join(root.base, *path.split("/"))) for path in paths}


def main(argv: list[str] | None = None) -> int:
    """`python -m capmap.file_trace LIBRARY PATH...`: prints `current_hashes` as one JSON line
    (`capmap run --changed-auto` compares it with a baseline's); exit 2 when LIBRARY is not found."""
    import json

    args = sys.argv[1:] if argv is None else argv
    if not args:
        print("usage: python -m capmap.file_trace LIBRARY [PATH...]", file=sys.stderr)
        return 2
    found = current_hashes(args[0], args[1:])
    if found is None:
        print(f"{args[0]}: no such importable package or module", file=sys.stderr)
        return 2
    print(json.dumps(found, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())

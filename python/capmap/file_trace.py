"""Which of the probed library's source files a case depends on, so a change can select it.

Two sources: the files whose code runs while the case's target is built and called (a trace),
and the files that define what the case names (its target's function or class with the classes
it derives from, the classes of a module's submodules, the public names it `covers`). The second
catches cases whose call runs no library line of its own: a `torch.nn.Sequential` subclass, a
dataclass whose `__init__` Python generated, a container a library function assembled.
"""

from __future__ import annotations

import ast
import contextlib
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


_DOCUMENTED = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


def source_code_hash(source: bytes) -> str | None:
    """`py-` and HASH_DIGITS hex digits of what Python runs of `source`: its syntax tree without
    docstrings, line numbers or comments. An edit of comments, docstrings, blank lines or layout
    keeps it; any other edit (a string, a default, an annotation) changes it. None when `source`
    is not Python that parses."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    for node in ast.walk(tree):
        if isinstance(node, _DOCUMENTED) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                if isinstance(first.value.value, str):
                    node.body = node.body[1:]
    printed = "".join(printed_tree(tree)).encode()
    return "py-" + hashlib.sha256(printed).hexdigest()[:HASH_DIGITS]


def printed_tree(node: Any) -> Iterator[str]:
    """The tree in a form that leaves out empty fields, which newer Pythons add (a function's
    `type_params`), so that one code hashes alike under Python 3.10 to 3.14."""
    if isinstance(node, ast.AST):
        yield "(" + type(node).__name__
        for field in node._fields:
            value = getattr(node, field, None)
            if value is None or (isinstance(value, list) and not value):
                continue
            yield f" {field}="
            yield from printed_tree(value)
        yield ")"
    elif isinstance(node, list):
        yield "["
        for item in node:
            yield from printed_tree(item)
            yield ","
        yield "]"
    else:
        yield repr(node)


_shared_folder: list[str] = []


def share_code_hashes(folder: str | None) -> None:
    """Processes forked after this call share the code hashes they work out through `folder`
    (a file per content hash), so a run parses each library file once, not once per case."""
    _shared_folder[:] = [folder] if folder else []


def _code_hash_shared(content: str, source: bytes) -> str:
    if not _shared_folder:
        return source_code_hash(source) or ""
    kept = os.path.join(_shared_folder[0], content)
    try:
        with open(kept) as f:
            return f.read()
    except OSError:
        pass
    code = source_code_hash(source) or ""
    with contextlib.suppress(OSError):  # a folder gone or full only costs the next parse
        temporary = f"{kept}.{os.getpid()}"
        with open(temporary, "w") as f:
            f.write(code)
        os.replace(temporary, kept)
    return code


@functools.lru_cache(maxsize=4096)
def _hashes_of(path: str, size: int, mtime_ns: int) -> tuple[str, str]:
    try:
        with open(path, "rb") as f:
            source = f.read()
    except OSError:
        return "", ""
    content = hashlib.sha256(source).hexdigest()[:HASH_DIGITS]
    return content, _code_hash_shared(content, source)


def file_hashes(path: str) -> list[str]:
    """The file's content hash, then its code hash (`source_code_hash`) when it is Python that
    parses; empty when it cannot be read. Cached by size and modification time, since a case
    records much the same files as the one before."""
    try:
        stat = os.stat(path)
    except OSError:
        return []
    return [h for h in _hashes_of(path, stat.st_size, stat.st_mtime_ns) if h]


def recorded_hash(path: str) -> str:
    """What a case records for a file: `CONTENT.CODE` (`CONTENT` alone when the file is not
    Python that parses). `--changed-auto` compares both with the installed file: a file whose
    code is the same but whose content is not moved lines only (docstrings, comments, layout)."""
    return ".".join(file_hashes(path))


class LibraryFileTrace:
    """Records the library files whose code runs inside the `with` block (this thread only).

    A global trace function sees every Python frame start; it returns None, so no line of any
    frame is traced and the cost is one small call per function entered. The block may be
    entered again (building a deferred target, then the call): the files add up.
    """

    def __init__(self, root: LibraryRoot | None, *, keep_code: bool = False) -> None:
        self._root = root
        self._in_library: dict[str, bool] = {}
        self._previous: Any = None
        # With keep_code, the library's code objects that ran (function_change maps them to
        # the functions they belong to).
        self.code: set[CodeType] | None = set() if keep_code else None

    def _on_call(self, frame: FrameType, event: str, arg: Any) -> None:
        code = frame.f_code
        filename = code.co_filename
        inside = self._in_library.get(filename)
        if inside is None:
            inside = self._in_library[filename] = self._root is not None and self._root.shows(filename)
        if inside and self.code is not None:
            self.code.add(code)
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
        """`{"pkg/path.py": recorded_hash}`, paths relative to the folder above the library."""
        if self._root is None:
            return {}
        out: dict[str, str] = {}
        for filename, inside in self._in_library.items():
            if inside:
                path = os.path.relpath(os.path.abspath(filename), self._root.base).replace(os.sep, "/")
                out[path] = recorded_hash(filename)
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


def current_hashes(library: str, paths: Iterable[str]) -> dict[str, list[str]] | None:
    """`{"pkg/path.py": [content hash, code hash]}` of the installed library's files now (empty
    list: the file is gone), for paths recorded relative to the folder above it; None when the
    library cannot be found."""
    from capmap.surveyed_library import named_root

    root = named_root(library, find=True)
    if root is None:
        return None
    return {path: file_hashes(os.path.join(root.base, *path.split("/"))) for path in paths}


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

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
        self._code: set[CodeType] | None = set() if keep_code else None
        self._entered: set[CodeType] = set()

    @property
    def code(self) -> set[CodeType] | None:
        """The library's code objects seen so far (None without keep_code)."""
        self._sort()
        return self._code

    def _sort(self) -> None:
        """Moves the code seen so far into the files and code of the library."""
        entered = list(self._entered)
        self._entered.clear()
        for code in entered:
            self._saw(code)

    def _saw(self, code: CodeType) -> None:
        filename = code.co_filename
        inside = self._in_library.get(filename)
        if inside is None:
            inside = self._in_library[filename] = self._root is not None and self._root.shows(filename)
        if inside and self._code is not None:
            self._code.add(code)

    def __enter__(self) -> LibraryFileTrace:
        self._previous = sys.gettrace()
        entered = self._entered.add

        # As little as can be: it runs for every frame; `_sort` looks at the code later.
        def on_call(frame: FrameType, event: str, arg: Any) -> None:
            entered(frame.f_code)

        sys.settrace(on_call)
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        sys.settrace(self._previous)

    def add_code(self, codes: Iterable[CodeType]) -> None:
        """Records code objects known to have run or been traced, as if the trace had seen
        them start."""
        for code in codes:
            self._saw(code)

    def add_definitions(self, objects: Iterable[Any]) -> None:
        """Records the library files that define `objects` (see `defined_in`)."""
        try:
            found = defined_in(objects)
        except Exception:  # noqa: BLE001 - an object that cannot be looked into adds nothing
            return
        for filename in found:
            if filename not in self._in_library:
                self._in_library[filename] = self._root is not None and self._root.shows(filename)

    def _relative(self, filename: str) -> str:
        assert self._root is not None
        return os.path.relpath(os.path.abspath(filename), self._root.base).replace(os.sep, "/")

    def files(self) -> dict[str, str]:
        """`{"pkg/path.py": recorded_hash}`, paths relative to the folder above the library."""
        self._sort()
        if self._root is None:
            return {}
        out: dict[str, str] = {}
        for filename, inside in self._in_library.items():
            if inside:
                out[self._relative(filename)] = recorded_hash(filename)
        return dict(sorted(out.items()))

    def functions(self) -> dict[str, str] | None:
        """`{"pkg/path.py": "helper Class.method"}`: the functions (`function_key`) whose code
        ran, space-separated, by file; None when the code was not kept or Python names no
        function's class (before 3.11)."""
        self._sort()
        if self.code is None or self._root is None or sys.version_info < (3, 11):
            return None
        by_file: dict[str, set[str]] = {}
        for code in self.code:
            key = function_key(code)
            if key is not None:
                by_file.setdefault(self._relative(code.co_filename), set()).add(key)
        return {path: " ".join(sorted(keys)) for path, keys in sorted(by_file.items())}

    def seen(self) -> tuple[int, int]:
        """Grows whenever the record may have: the files looked at and the library code kept."""
        self._sort()
        return len(self._in_library), len(self._code or ())

    def record(self) -> dict[str, Any]:
        """The record's `files`, and its `functions` where known."""
        record: dict[str, Any] = {"files": self.files()}
        functions = self.functions()
        if functions is not None:
            record["functions"] = functions
        return record


def function_key(code: CodeType) -> str | None:
    """The outermost function `code` belongs to, named as `function_split` keys it
    (`Class.method`, `helper`); None for module and class-level code (a module's lambda) and
    for the functions dynamo makes to resume a frame after a graph break."""
    outer = str(getattr(code, "co_qualname", "<>")).split(".<locals>.", 1)[0]
    # A method's resume function is named inside its class: `K.torch_dynamo_resume_in_m_at_5`.
    if "<" in outer or outer.rpartition(".")[2].startswith(_DYNAMO_RESUME):
        return None
    return outer


# The name dynamo gives the code it generates to resume a frame after a graph break; the
# frame's own function is among the code it traced too.
_DYNAMO_RESUME = "torch_dynamo_resume_in_"


@contextlib.contextmanager
def dynamo_traced_code() -> Iterator[list[list[CodeType]]]:
    """Inside the block, each torch.compile trace's list of the code objects dynamo traced
    (the frame's own, then each function it inlined) is collected as dynamo fills it. Dynamo
    keeps that list on the tracing context it creates for each frame; where a torch version
    has no such list, nothing is collected."""
    found: list[list[CodeType]] = []
    try:
        from torch._guards import TracingContext
    except ImportError:
        yield found
        return
    original = TracingContext.__init__

    def collecting(self: Any, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        traced = getattr(self, "traced_code", None)
        if isinstance(traced, list):
            found.append(traced)

    TracingContext.__init__ = collecting  # type: ignore[method-assign]
    try:
        yield found
    finally:
        TracingContext.__init__ = original  # type: ignore[method-assign]


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
    """`python -m capmap.tracing.file_trace LIBRARY PATH...`: prints `current_hashes` as one JSON line
    (`capmap run --changed-auto` compares it with a baseline's); exit 2 when LIBRARY is not found."""
    import json

    args = sys.argv[1:] if argv is None else argv
    if not args:
        print("usage: python -m capmap.tracing.file_trace LIBRARY [PATH...]", file=sys.stderr)
        return 2
    found = current_hashes(args[0], args[1:])
    if found is None:
        print(f"{args[0]}: no such importable package or module", file=sys.stderr)
        return 2
    print(json.dumps(found, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())

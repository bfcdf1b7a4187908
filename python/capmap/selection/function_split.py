"""A Python file split into its functions and the rest, and what an edit changed among them.

The functions are the outermost `def`s of the module and of its classes, with everything they
nest, keyed `Class.method`; the rest, the *skeleton*, is imports, module and class-level
statements, decorators and signatures. `compare` says which functions an edit changed, or that
it changed the skeleton (then anything in the file may behave otherwise).
"""

from __future__ import annotations

import ast
import bisect
import hashlib
from dataclasses import dataclass, field

from capmap.tracing.file_trace import printed_tree

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
_BLOCKS = (ast.If, ast.Try, ast.With, ast.AsyncWith, ast.For, ast.AsyncFor, ast.While)


@dataclass
class Functions:
    """A Python file split into its outermost functions and its skeleton."""

    skeleton: str
    hashes: dict[str, str] = field(default_factory=dict)  # key (`Class.method`) -> code hash
    names: dict[str, frozenset[str]] = field(default_factory=dict)  # key -> names its code uses
    module_names: frozenset[str] = frozenset()  # the names the skeleton uses
    _starts: list[int] = field(default_factory=list)
    _spans: list[tuple[int, int, str]] = field(default_factory=list)

    def at(self, line: int) -> str | None:
        """The function whose lines (decorators included) hold `line`; None: module level."""
        i = bisect.bisect_right(self._starts, line) - 1
        if i >= 0:
            start, end, key = self._spans[i]
            if start <= line <= end:
                return key
        return None


def _drop_docstring(node: ast.AST) -> None:
    body = getattr(node, "body", None)
    if isinstance(body, list) and body:
        first = body[0]
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
            if isinstance(first.value.value, str):
                node.body = body[1:]  # type: ignore[attr-defined]


def _hash(node: ast.AST) -> str:
    return hashlib.sha256("".join(printed_tree(node)).encode()).hexdigest()[:16]


def _used_names(node: ast.AST, *, strings: bool = True) -> frozenset[str]:
    found: set[str] = set()
    for item in ast.walk(node):
        if isinstance(item, ast.Name):
            found.add(item.id)
        elif isinstance(item, ast.Attribute):
            found.add(item.attr)
        elif strings and isinstance(item, ast.Constant) and isinstance(item.value, str):
            if item.value.isidentifier():
                found.add(item.value)  # getattr(self, "name")
    return frozenset(found)


def _outermost_defs(body: list[ast.stmt], prefix: str, out: list[tuple[str, ast.AST]]) -> None:
    for node in body:
        if isinstance(node, _DEFS):
            out.append((prefix + node.name, node))
        elif isinstance(node, ast.ClassDef):
            _outermost_defs(node.body, f"{prefix}{node.name}.", out)
        elif isinstance(node, _BLOCKS):
            for part in ("body", "orelse", "finalbody"):
                _outermost_defs(getattr(node, part, []), prefix, out)
            for handler in getattr(node, "handlers", []):
                _outermost_defs(handler.body, prefix, out)


def split_functions(source: bytes) -> Functions | None:
    """`source` split as the module says; None when it is not Python that parses."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, *_DEFS)):
            _drop_docstring(node)
    found: list[tuple[str, ast.AST]] = []
    _outermost_defs(tree.body, "", found)
    functions = Functions(skeleton="")
    spans = []
    for key, node in found:
        while key in functions.hashes:  # the same name defined twice (if/else branches)
            key += "'"
        assert isinstance(node, _DEFS)
        functions.hashes[key] = _hash(ast.Module(body=node.body, type_ignores=[]))
        functions.names[key] = _used_names(node)
        start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        spans.append((start, node.end_lineno or node.lineno, key))
        node.body = [ast.Pass()]  # the skeleton keeps its decorators and signature
    spans.sort()
    functions._spans = spans
    functions._starts = [s[0] for s in spans]
    functions.skeleton = _hash(tree)
    # What import-time code calls (`KERNEL = make_kernel()`, a decorator, a default); the
    # names in `__all__` are strings and call nothing.
    functions.module_names = _used_names(tree, strings=False)
    return functions


def short_name(key: str) -> str:
    """`Class.method'` → `method`: what code that calls it names."""
    return key.rstrip("'").rsplit(".", 1)[-1]


@dataclass
class FileChange:
    """How one file changed: `whole` (the skeleton differs, or it cannot be split), else the
    functions whose code differs, are new or are gone, closed over the functions naming them."""

    whole: bool
    changed: set[str] = field(default_factory=set)


def naming_closure(functions: Functions, keys: set[str]) -> set[str]:
    """`keys` and the functions of the file that name one of them, directly or through each
    other: a change to one may reach them all."""
    closed, short = set(keys), {short_name(k) for k in keys}
    grew = True
    while grew:
        grew = False
        for key, used in functions.names.items():
            if key not in closed and used & short:
                closed.add(key)
                short.add(short_name(key))
                grew = True
    return closed


def compare(before: bytes | None, after: bytes | None) -> FileChange:
    old = split_functions(before) if before is not None else None
    new = split_functions(after) if after is not None else None
    if old is None or new is None or old.skeleton != new.skeleton:
        return FileChange(whole=True)
    changed = naming_closure(
        new, {k for k in old.hashes.keys() | new.hashes.keys() if old.hashes.get(k) != new.hashes.get(k)}
    )
    if new.module_names & {short_name(k) for k in changed}:
        # Import-time code runs a changed function: what it made (a table, a wrapped
        # function) is in module state, which no trace of a call sees being made.
        return FileChange(whole=True)
    return FileChange(whole=False, changed=changed)

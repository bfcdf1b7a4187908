"""The line that made the value torch fails on.

torch names the line where it needed a value: a size, a branch, a constant of the program. The
culprit is often elsewhere: the `.tolist()` or `.item()` that made a data-dependent number, or
the `.data` read that left a traced tensor as a constant. `describe` (capmap.errors) asks
`culprit` for that line and what to say about it.
"""

from __future__ import annotations

import ast
import functools
import inspect
import linecache
import os
import re
import traceback
import types
import weakref
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from capmap.errors import LibraryRoot


_installed = False
# The noting dict written last: dynamo raises a data-dependent error without the traceback that
# leads to its ShapeEnv, and the trace that failed is the one that noted last.
_last_noted: Any = None


class _NotingStacks(dict):  # type: ignore[type-arg]
    """A ShapeEnv's `var_to_stack` (symbol → torch's framework traceback where it was made) that
    also notes, by symbol name, the stacks a user reads: dynamo's stack of the traced user code
    and the Python stack (a non-strict export runs the library's code itself). torch fills it
    only for data-dependent (unbacked) symbols. Noting in `__setitem__` keeps capmap off the stack
    whenever torch looks for the user's frame (its `Caused by:` lines)."""

    made: dict[str, tuple[list[traceback.FrameSummary], list[traceback.FrameSummary]]]

    def __setitem__(self, key: Any, value: Any) -> None:
        super().__setitem__(key, value)
        try:
            made = self.__dict__.setdefault("made", {})
            python_stack = traceback.StackSummary.extract(traceback.walk_stack(None), lookup_lines=False)
            python_stack.reverse()  # walk_stack goes innermost first; tracebacks outermost first
            made[str(key)] = (_user_stack(), list(python_stack))
            global _last_noted
            _last_noted = weakref.ref(self)
        except Exception:  # noqa: BLE001 - a note must never change what the trace does
            pass


def note_where_unbacked_values_are_made() -> None:
    """From now on, every ShapeEnv notes where each data-dependent value its tracer makes (the
    number `.item()` or `.tolist()` returns while tracing) was made, so that `describe` can name
    that line when code later needs the value (a size, a branch) and torch fails there. torch
    keeps only a framework trace of it (dynamo's own frames, not the user's). Idempotent; a
    torch whose ShapeEnv has no `var_to_stack` is left alone."""
    global _installed
    if _installed:
        return
    _installed = True
    try:
        from torch.fx.experimental.symbolic_shapes import ShapeEnv
    except ImportError:  # pragma: no cover - torch always has it
        return
    original_init = ShapeEnv.__init__

    def __init__(env: Any, *args: Any, **kwargs: Any) -> None:
        original_init(env, *args, **kwargs)
        stacks = env.__dict__.get("var_to_stack")
        if type(stacks) is dict:
            env.var_to_stack = _NotingStacks(stacks)

    __init__.__wrapped__ = original_init  # type: ignore[attr-defined]
    ShapeEnv.__init__ = __init__  # type: ignore[method-assign,assignment]


def _made_stacks(exc: BaseException) -> dict[str, Any]:
    """For a data-dependent error torch raised: symbol name → the stacks noted where it was made,
    for the symbols of the failing expression, read from the ShapeEnv that raised it (`self` of
    a frame of its traceback)."""
    cond = getattr(exc, "cond", None)
    names = sorted(str(s) for s in getattr(cond, "free_symbols", ()) or ())
    if not names:
        return {}
    tb = exc.__traceback__
    while tb is not None:
        try:
            stacks = getattr(tb.tb_frame.f_locals.get("self"), "var_to_stack", None)
        except Exception:  # noqa: BLE001 - a library object's lookup must not fail the record
            stacks = None
        made = getattr(stacks, "made", None) if isinstance(stacks, _NotingStacks) else None
        if made:
            return {n: made[n] for n in names if n in made}
        tb = tb.tb_next
    last = _last_noted() if _last_noted is not None else None
    made = getattr(last, "made", None) or {}
    return {n: made[n] for n in names if n in made}


def _user_stack() -> list[traceback.FrameSummary]:
    """dynamo's stack of the user code it traces (empty outside dynamo)."""
    from torch._guards import TracingContext

    return list(TracingContext.extract_stack())


def culprit(chain: list[BaseException], root: LibraryRoot, used: str | None) -> tuple[str, list[str]] | None:
    """(what the worker found, the library frames of the line that made the failing value)."""
    return _made_unbacked(chain, root, used) or _read_through_data(chain, root)


def _made_unbacked(
    chain: list[BaseException], root: LibraryRoot, used: str | None
) -> tuple[str, list[str]] | None:
    for e in chain:
        for symbol, stacks in _made_stacks(e).items():
            for stack in stacks:
                inside = [f for f in stack if f.filename and root.shows(f.filename)]
                if not inside:
                    continue
                frames = [root.format(f.filename, f.lineno, f.name) for f in inside]
                where = frames[-1] + _code(inside[-1])
                finding = f"The data-dependent value {symbol} is made at {where}"
                if used and used != frames[-1]:
                    finding += f", and used at {used}"
                return finding + ".", frames
    return None


def _code(frame: traceback.FrameSummary) -> str:
    line = (frame.line or "").strip()
    return f" (`{line}`)" if line else ""


# `.data` read or written, not `.data_ptr()` or a `.dataset`.
_DATA_ACCESS = re.compile(r"\.data\b(?!\s*\()")
_STACK_LINE = re.compile(r'File "([^"]+)", line (\d+), in (\S+)')


class _Use(NamedTuple):
    """A graph node that uses a fake constant: its stack trace, and the module whose `forward`
    ran when it was made (None where that cannot be told for sure)."""

    stack_trace: str
    module: Any


def _read_through_data(chain: list[BaseException], root: LibraryRoot) -> tuple[str, list[str]] | None:
    """A traced (fake) tensor left among an exported program's constants is what `.data` of a
    traced tensor gives: the tracer does not follow it. The program lies in the locals of the
    frames that raised (torch.export's check, the ONNX exporter's later steps); the graph nodes
    that use the constant say where, and the `.data` is on that line or above it in its function,
    or else in the one function that line calls which reads `.data`."""
    for e in chain:
        for use in _fake_constant_uses(e):
            stack = _stack_frames(use.stack_trace)
            frames = [f for f in stack if root.shows(f.filename)]
            if not frames:
                continue
            data_line = _data_line(frames[-1])
            if data_line is not None:
                made_at = traceback.FrameSummary(frames[-1].filename, data_line, frames[-1].name)
                shown = [root.format(f.filename, f.lineno, f.name) for f in [*frames[:-1], made_at]]
                return _data_finding(shown[-1], made_at, ""), shown
            # Only where the node's stack ends at the library line, not in a torch module it calls.
            called = _called_data_line(stack[-1], use.module) if stack[-1] is frames[-1] else None
            if called is not None and root.shows(called.filename):
                shown = [root.format(f.filename, f.lineno, f.name) for f in [*frames, called]]
                return _data_finding(shown[-1], called, f", called at {shown[-2]}"), shown
    return None


def _data_finding(where: str, made_at: traceback.FrameSummary, called: str) -> str:
    return (
        f"Reads `.data` of a traced tensor at {where}{_code(made_at)}{called}: the tracer does not "
        "follow `.data`, so the program keeps a fake constant in its place."
    )


def _fake_constant_uses(exc: BaseException) -> list[_Use]:
    """The graph nodes that use a fake tensor constant of a program found in the locals of
    `exc`'s traceback frames."""
    try:
        import torch
        from torch._subclasses.fake_tensor import FakeTensor
    except ImportError:  # pragma: no cover
        return []
    # Only torch's own frames: their locals are torch's objects, or the module it exports, whose
    # attributes are read without running the library's code.
    torch_dir = os.path.dirname(os.path.abspath(torch.__file__)) + os.sep
    uses: list[tuple[str, dict[str, Any]]] = []
    modules: dict[int, Any] = {}
    seen: set[int] = set()
    tb = exc.__traceback__
    while tb is not None:
        frame = tb.tb_frame
        tb = tb.tb_next
        if not os.path.abspath(frame.f_code.co_filename).startswith(torch_dir):
            continue
        for value in list(frame.f_locals.values()):
            if isinstance(value, torch.nn.Module):
                modules[id(value)] = value
                continue
            try:
                programs = _programs_in(value)
            except Exception:  # noqa: BLE001 - a look at a local must not fail the record
                continue
            for constants, graph in programs:
                if id(graph) in seen:
                    continue
                seen.add(id(graph))
                fake = {name for name, c in constants.items() if isinstance(c, FakeTensor)}
                if fake:
                    uses += _uses_of(graph, fake)
    roots = list(modules.values())
    return [_Use(stack, _running_module(module_stack, roots)) for stack, module_stack in uses]


def _running_module(module_stack: dict[str, Any], roots: list[Any]) -> Any:
    try:
        return _module_at(module_stack, roots)
    except Exception:  # noqa: BLE001 - a look at the library's objects must not fail the record
        return None


def _programs_in(value: Any) -> list[tuple[dict[str, Any], Any]]:
    """(constants, graph) of an ExportedProgram, or of torch.export's artifact of one."""
    found = []
    aten = getattr(value, "aten", None)  # torch.export's ExportArtifact
    for holder, gm in ((value, getattr(value, "graph_module", None)), (aten, getattr(aten, "gm", None))):
        constants = getattr(holder, "constants", None)
        graph = getattr(gm, "graph", None)
        if isinstance(constants, dict) and graph is not None and hasattr(graph, "nodes"):
            found.append((constants, graph))
    return found


def _uses_of(graph: Any, names: set[str]) -> list[tuple[str, dict[str, Any]]]:
    """(stack trace, nn_module_stack) of each node that uses one of the constants `names`."""
    uses = []
    # A get_attr node names the constant as it is (`block.lifted_tensor_0`), a lifted placeholder
    # with a prefix and underscores for dots (`c_block_lifted_tensor_0`).
    flat = {n.replace(".", "_") for n in names}
    for node in graph.nodes:
        target = str(getattr(node, "target", ""))
        if node.op == "get_attr":
            named = target in names
        else:
            named = node.op == "placeholder" and any(target.endswith("_" + n) for n in flat)
        if named:
            for user in node.users:
                meta = getattr(user, "meta", None) or {}
                if meta.get("stack_trace"):
                    uses.append((meta["stack_trace"], meta.get("nn_module_stack") or {}))
    return uses


def _type_name(cls: type) -> str:
    """A class as nn_module_stack names it."""
    return f"{cls.__module__}.{cls.__qualname__}"


def _module_at(module_stack: dict[str, Any], roots: list[Any]) -> Any:
    """The module whose `forward` made a node: the innermost of its nn_module_stack (path, class
    name) entries, found under the exported module by walking `_modules`, never by a lookup that
    could run the library's code. None where no root, or more than one, matches."""
    entries = [v for v in module_stack.values() if isinstance(v, tuple) and len(v) == 2]
    if not entries:
        return None
    (_, root_type), (path, innermost_type) = entries[0], entries[-1]
    found: dict[int, Any] = {}
    for root in roots:
        if _type_name(type(root)) != root_type:
            continue
        module = root
        # A module called again is named `path@N`.
        for part in [p for p in path.split("@")[0].split(".") if p]:
            children = vars(module).get("_modules") or {}
            module = children.get(part)
            if module is None:
                break
        if module is not None and _type_name(type(module)) == innermost_type:
            found[id(module)] = module
    return next(iter(found.values())) if len(found) == 1 else None


def _stack_frames(stack_trace: str) -> list[traceback.FrameSummary]:
    return [
        traceback.FrameSummary(m.group(1), int(m.group(2)), m.group(3))
        for m in _STACK_LINE.finditer(stack_trace)
    ]


def _data_line(frame: traceback.FrameSummary) -> int | None:
    """The line of `frame`, or the nearest above it in the same function, that reads or writes
    `.data`; None when the function has none."""
    lineno = frame.lineno or 0
    line = linecache.getline(frame.filename, lineno)
    if not line:
        return None
    indent = len(line) - len(line.lstrip())
    for n in range(lineno, 0, -1):
        text = linecache.getline(frame.filename, n)
        code = text.split("#", 1)[0]
        if _DATA_ACCESS.search(code):
            return n
        stripped = text.lstrip()
        if stripped.startswith(("def ", "async def ")) and len(text) - len(stripped) < indent:
            return None
    return None


def _called_data_line(frame: traceback.FrameSummary, module: Any) -> traceback.FrameSummary | None:
    """The `.data` line of the function that `frame`'s line calls, where torch's stack stops one
    call short of it: torch keeps only `forward` frames in a node's stack, so a function that
    `forward` calls (a helper, a partial of a method) is missing. `module` is the module whose
    `forward` runs in `frame`; its own objects tell what each call of the line (`self.name(...)`,
    `name(...)`) reaches. Named only when exactly one function reached from the line reads
    `.data`, on exactly one line; None otherwise."""
    try:
        return _called_data_line_of(frame, module)
    except Exception:  # noqa: BLE001 - a look at the library's objects must not fail the record
        return None


def _called_data_line_of(frame: traceback.FrameSummary, module: Any) -> traceback.FrameSummary | None:
    forward = _forward_running(frame, module)
    if forward is None:
        return None
    tree = _parsed(frame.filename)
    if tree is None:
        return None
    code, lineno = forward.__code__, frame.lineno or 0
    self_name = code.co_varnames[0] if code.co_argcount else None
    own_names = {*code.co_varnames, *code.co_cellvars, *code.co_freevars}
    reached: dict[int, types.FunctionType] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not node.lineno <= lineno <= (node.end_lineno or node.lineno):
            continue
        callee: Any = None
        if isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name):
            if node.func.value.id == self_name:
                try:
                    callee = inspect.getattr_static(module, node.func.attr)
                except AttributeError:  # a submodule: its own `forward` is in the stack
                    continue
        elif isinstance(node.func, ast.Name) and node.func.id not in own_names:
            callee = forward.__globals__.get(node.func.id)
        function = _function_of(callee)
        if function is not None:
            reached[id(function)] = function
    found = [line for line in (_only_data_line(f) for f in reached.values()) if line is not None]
    return found[0] if len(found) == 1 else None


def _forward_running(frame: traceback.FrameSummary, module: Any) -> types.FunctionType | None:
    """The `forward` of `module`'s class, where its code holds `frame`'s line: then `self` in
    `frame` is `module`."""
    if module is None:
        return None
    try:
        forward = _function_of(inspect.getattr_static(module, frame.name))
    except AttributeError:
        return None
    if forward is None:
        return None
    code = forward.__code__
    lines = {line for _, _, line in code.co_lines() if line is not None}
    same_file = os.path.abspath(code.co_filename) == os.path.abspath(frame.filename)
    return forward if same_file and code.co_name == frame.name and frame.lineno in lines else None


def _function_of(value: Any) -> types.FunctionType | None:
    """The Python function that calling `value` runs, through partials and bound methods."""
    for _ in range(8):
        if type(value) is functools.partial:
            value = value.func
        elif isinstance(value, (types.MethodType, staticmethod, classmethod)):
            value = value.__func__
        else:
            break
    return value if isinstance(value, types.FunctionType) else None


def _parsed(filename: str) -> ast.Module | None:
    try:
        return ast.parse("".join(linecache.getlines(filename)), filename)
    except (SyntaxError, ValueError):
        return None


def _only_data_line(function: types.FunctionType) -> traceback.FrameSummary | None:
    """The line of `function` (not of a function defined in it) that reads or writes `.data`,
    where it has exactly one."""
    code = function.__code__
    tree = _parsed(code.co_filename)
    if tree is None or code.co_name == "<lambda>":
        return None
    defs = [
        node
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        and node.name == code.co_name
        and min([node.lineno, *(d.lineno for d in node.decorator_list)]) == code.co_firstlineno
    ]
    if len(defs) != 1:
        return None
    lines = {access for statement in defs[0].body for access in _data_accesses(statement)}
    if len(lines) != 1:
        return None
    return traceback.FrameSummary(code.co_filename, lines.pop(), code.co_name)


def _data_accesses(node: ast.AST) -> list[int]:
    """Lines where `node` reads or writes `.data` (not `.data(...)`), outside nested scopes."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
        return []
    found = []
    if isinstance(node, ast.Attribute) and node.attr == "data":
        found.append(node.end_lineno or node.lineno)
    for child in ast.iter_child_nodes(node):
        if isinstance(node, ast.Call) and child is node.func and isinstance(child, ast.Attribute):
            found += _data_accesses(child.value)  # `x.data(...)` is a method call
        else:
            found += _data_accesses(child)
    return found

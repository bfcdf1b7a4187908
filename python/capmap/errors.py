"""Turns an exception into the fields a record keeps: its type, the root cause, library frames."""

from __future__ import annotations

import linecache
import os
import re
import sys
import traceback
import weakref
from dataclasses import dataclass
from typing import Any

MESSAGE_LIMIT = 1000
FRAME_LIMIT = 6

# Lines from which torch only adds boilerplate (hints to rerun with logging, dumped user stacks).
_TAIL_MARKERS = (
    "Set TORCHDYNAMO_VERBOSE=1",
    "Set TORCH_LOGS=",
    "from user code:",
    "For more information, run with TORCH_LOGS",
    "For C++ stack trace, run with TORCHDYNAMO_EXTENDED_DEBUG_CPP=1",
    "The following call raised this error:",
    "To fix the error, insert one of the following checks",
    "To execute this test, run the following from the base repo dir:",
    "This minified program was",
    "The error above occurred when calling torch.export.export.",
    "(Refer to the full stack trace above for more information.)",
    "Developer debug context:",
    "User Stack (most recent call last):",
)
_GRAPH_START = re.compile(r"^\s*(class \w+\(torch\.nn\.Module\)|graph\(|def forward\(|GraphModule\()")
_ANSI_ESCAPE = re.compile(r"\x1b\[[0-9;]*m")
_TENSOR_START = re.compile(r"\b(tensor|FakeTensor|FunctionalTensor|Parameter)\(")


@dataclass
class ErrorInfo:
    error_type: str
    message: str
    frames: list[str]

    def fields(self) -> dict[str, Any]:
        return {"error_type": self.error_type, "message": self.message, "frames": self.frames}


@dataclass
class LibraryRoot:
    """Where the probed library's files live, and the folder frame paths are shown relative to."""

    root: str
    base: str

    def shows(self, filename: str) -> bool:
        path = os.path.abspath(filename)
        return path == self.root or path.startswith(self.root + os.sep)

    def format(self, filename: str, lineno: int | None, function: str) -> str:
        """`package/path.py:LINE in function`."""
        path = os.path.relpath(os.path.abspath(filename), self.base).replace(os.sep, "/")
        return f"{path}:{lineno} in {function}"


def library_root(target: Any) -> LibraryRoot | None:
    """The top-level package (or single-file module) that defines `target`."""
    module_name = getattr(target, "__module__", None)
    if not isinstance(module_name, str) or not module_name:
        module_name = getattr(type(target), "__module__", "") or ""
    top = sys.modules.get(module_name.split(".", 1)[0])
    file = getattr(top, "__file__", None)
    if not file:
        return None
    file = os.path.abspath(file)
    if os.path.basename(file) == "__init__.py":
        package_dir = os.path.dirname(file)
        return LibraryRoot(root=package_dir, base=os.path.dirname(package_dir))
    return LibraryRoot(root=file, base=os.path.dirname(file))


def exception_chain(exc: BaseException) -> list[BaseException]:
    """The exception, then what caused it, down to the deepest error (explicit cause first)."""
    chain: list[BaseException] = []
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        chain.append(current)
        seen.add(id(current))
        nxt = current.__cause__
        if nxt is None and not current.__suppress_context__:
            nxt = current.__context__
        current = nxt
    return chain


def clean_message(text: str, limit: int = MESSAGE_LIMIT) -> str:
    """Keeps the explanation, drops dumped graphs, tensor values and rerun hints, then trims."""
    kept: list[str] = []
    in_graph = False
    text = _ANSI_ESCAPE.sub("", text)
    for line in _drop_tensor_values(text).splitlines():
        stripped = line.strip()
        if any(stripped.startswith(m) for m in _TAIL_MARKERS):
            break
        if in_graph:
            # A dumped graph continues while lines stay indented.
            if line.startswith((" ", "\t")) or not stripped:
                continue
            in_graph = False
        if _GRAPH_START.match(line):
            in_graph = True
            kept.append("<graph omitted>")
            continue
        kept.append(line.rstrip())
    message = "\n".join(kept).strip()
    message = re.sub(r"\n{3,}", "\n\n", message)
    if len(message) > limit:
        message = message[: limit - 3].rstrip() + "..."
    return message


def _drop_tensor_values(text: str) -> str:
    """`tensor([[0.1, ...]])` → `tensor(...)`: values say nothing about why capture failed."""
    out: list[str] = []
    pos = 0
    for match in _TENSOR_START.finditer(text):
        if match.start() < pos:
            continue
        depth, end = 0, None
        for i in range(match.end() - 1, len(text)):
            if text[i] == "(":
                depth += 1
            elif text[i] == ")":
                depth -= 1
                if depth == 0:
                    end = i + 1
                    break
        if end is None:
            break
        out.append(text[pos : match.start()])
        out.append(f"{match.group(1)}(...)")
        pos = end
    out.append(text[pos:])
    return "".join(out)


def _frames_in(exc: BaseException, root: LibraryRoot) -> list[str]:
    frames = []
    for frame in traceback.extract_tb(exc.__traceback__):
        if frame.filename and root.shows(frame.filename):
            frames.append(_show(frame, root))
    # dynamo traces symbolically, so the library lines are in the user stack it attaches.
    for attr in ("real_stack", "user_stack"):
        stack = getattr(exc, attr, None)
        if stack:
            for frame in stack:
                filename = getattr(frame, "filename", None)
                if filename and root.shows(filename):
                    frames.append(_show(frame, root))
    return frames


def _show(frame: traceback.FrameSummary, root: LibraryRoot) -> str:
    return root.format(frame.filename, frame.lineno, frame.name)


def describe(exc: BaseException, root: LibraryRoot | None) -> ErrorInfo:
    """Root cause of `exc` and the innermost frames of the probed library that led to it.

    Where torch fails on a value the library made earlier (a data-dependent number, a tensor
    read through `.data`), the frames are those of the line that made it, and the message says
    where it was made and where it was used: the consumer's line alone names the wrong line."""
    chain = exception_chain(exc)
    deepest = chain[-1]
    # A bare re-raise wrapper may carry no text; take the deepest error that says something.
    cause = next((e for e in reversed(chain) if str(e).strip()), deepest)
    message = clean_message(str(cause)) or type(cause).__name__
    frames: list[str] = []
    if root is not None:
        # Innermost frames: prefer the deepest error whose traceback reaches the library.
        for e in reversed(chain):
            frames = _frames_in(e, root)
            if frames:
                break
    deduped = _deduped(frames)
    if root is not None:
        culprit = _culprit(chain, root, deduped[-1] if deduped else None)
        if culprit is not None:
            finding, made = culprit
            deduped = _deduped(made)
            message = _with_finding(message, finding)
    return ErrorInfo(error_type=type(cause).__name__, message=message, frames=deduped[-FRAME_LIMIT:])


def _deduped(frames: list[str]) -> list[str]:
    deduped: list[str] = []
    for f in frames:
        if not deduped or deduped[-1] != f:
            deduped.append(f)
    return deduped


def _with_finding(message: str, finding: str) -> str:
    """torch's first line, then what the worker found, then the rest of torch's text: the page
    shows the first lines, and rules and the unclassified groups read the first one."""
    first, _, rest = message.partition("\n")
    room = MESSAGE_LIMIT - len(finding) - 1
    if len(first) > room:  # the finding is kept whole: rules match it
        first = first[: max(room - 3, 0)].rstrip() + "..."
    text = f"{first}\n{finding}" + (f"\n{rest}" if rest else "")
    if len(text) > MESSAGE_LIMIT:
        text = text[: MESSAGE_LIMIT - 3].rstrip() + "..."
    return text


# --- The line that made the value torch fails on ---------------------------------------------

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


def _culprit(chain: list[BaseException], root: LibraryRoot, used: str | None) -> tuple[str, list[str]] | None:
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
                frames = [_show(f, root) for f in inside]
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


def _read_through_data(chain: list[BaseException], root: LibraryRoot) -> tuple[str, list[str]] | None:
    """A traced (fake) tensor left among an exported program's constants is what `.data` of a
    traced tensor gives: the tracer does not follow it. The program lies in the locals of the
    frames that raised (torch.export's check, the ONNX exporter's later steps); the graph nodes
    that use the constant say where, and the `.data` is on that line or above it in its function."""
    for e in chain:
        for found in _fake_constant_uses(e):
            frames = [f for f in _stack_frames(found) if root.shows(f.filename)]
            if not frames:
                continue
            culprit = frames[-1]
            data_line = _data_line(culprit)
            if data_line is None:
                continue
            culprit = traceback.FrameSummary(culprit.filename, data_line, culprit.name)
            shown = [_show(f, root) for f in frames[:-1]] + [_show(culprit, root)]
            finding = (
                f"Reads `.data` of a traced tensor at {shown[-1]}{_code(culprit)}: the tracer does not "
                "follow `.data`, so the program keeps a fake constant in its place."
            )
            return finding, shown
    return None


def _fake_constant_uses(exc: BaseException) -> list[str]:
    """The stack traces of the graph nodes that use a fake tensor constant of a program found in
    the locals of `exc`'s traceback frames."""
    try:
        import torch
        from torch._subclasses.fake_tensor import FakeTensor
    except ImportError:  # pragma: no cover
        return []
    # Only torch's own frames: their locals are torch's objects, never a library's, whose
    # attribute lookups could do anything.
    torch_dir = os.path.dirname(os.path.abspath(torch.__file__)) + os.sep
    uses: list[str] = []
    seen: set[int] = set()
    tb = exc.__traceback__
    while tb is not None:
        frame = tb.tb_frame
        tb = tb.tb_next
        if not os.path.abspath(frame.f_code.co_filename).startswith(torch_dir):
            continue
        for value in list(frame.f_locals.values()):
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
    return uses


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


def _uses_of(graph: Any, names: set[str]) -> list[str]:
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
                stack = user.meta.get("stack_trace") if hasattr(user, "meta") else None
                if stack:
                    uses.append(stack)
    return uses


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

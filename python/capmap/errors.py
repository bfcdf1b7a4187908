"""Turns an exception into the fields a record keeps: its type, the root cause, library frames."""

from __future__ import annotations

import os
import re
import sys
import traceback
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
        # Imported here: a repro script loads its registry (which imports this module) and may
        # import nothing of capmap beyond the loader.
        from capmap.culprit import culprit

        found = culprit(chain, root, deduped[-1] if deduped else None)
        if found is not None:
            finding, made = found
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

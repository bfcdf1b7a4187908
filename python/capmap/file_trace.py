"""Which of the probed library's source files a call executes, so a change can select its cases."""

from __future__ import annotations

import hashlib
import os
import sys
from types import FrameType, TracebackType
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
    frame is traced and the cost is one small call per function entered.
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

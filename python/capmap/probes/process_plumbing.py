"""What a probe does to its own process around a capture: timing it, pausing the cycle collector,
keeping its output off the terminal."""

from __future__ import annotations

import contextlib
import gc
import os
import stat
import sys
import tempfile
import time
from collections.abc import Iterator
from typing import Any

LOG_TAIL_BYTES = 4096


class Stopwatch:
    def __init__(self) -> None:
        self.start = time.perf_counter()

    def seconds(self) -> float:
        return round(time.perf_counter() - self.start, 6)


@contextlib.contextmanager
def collection_paused() -> Iterator[None]:
    """Python's cycle collector stays off while torch traces or converts a program. torch 2.9
    holds some tensors of a trace only through weak references, and a collection at the wrong
    moment frees one mid-trace ("cannot call get_autograd_meta() on undefined tensor", "tensor
    does not have a device"). When a collection runs depends on all the process allocated
    before, not on the operator, so without this a cell would depend on the harness. Reference
    counting still frees everything that is not in a cycle."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


@contextlib.contextmanager
def captured_output(sink: dict[str, Any]) -> Iterator[None]:
    """Keeps a probe's chatter (exporter progress, dynamo warnings, prints) off the terminal.

    In a worker child, fd 1 is already the task's private log file: both fds write there and the
    text this probe added becomes sink["log_tail"], so the task log keeps everything in order.
    Anywhere else (a terminal, a pipe) the output goes to a temporary file that is then dropped.
    """
    sys.stdout.flush()
    sys.stderr.flush()
    log_path = "/proc/self/fd/1"
    into_log = stat.S_ISREG(os.fstat(1).st_mode)
    # Each resource is taken only once the one before it is held, and given back if the next
    # cannot be had: a failure here leaves no descriptor open.
    temp = None if into_log else tempfile.TemporaryFile()
    try:
        saved_err = os.dup(2)
        try:
            saved_out = None if temp is None else os.dup(1)
        except OSError:
            os.close(saved_err)
            raise
    except OSError:
        if temp is not None:
            temp.close()
        raise
    if temp is None:
        start = os.fstat(1).st_size
        os.dup2(1, 2)
    else:
        start = 0
        os.dup2(temp.fileno(), 1)
        os.dup2(temp.fileno(), 2)
    try:
        yield
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        try:
            end = os.fstat(1).st_size
            if end > start:
                first = max(start, end - LOG_TAIL_BYTES)
                with open(log_path, "rb") as log:
                    log.seek(first)
                    sink["log_tail"] = log.read(end - first).decode("utf-8", "replace")
        finally:
            os.dup2(saved_err, 2)
            os.close(saved_err)
            if saved_out is not None:
                os.dup2(saved_out, 1)
                os.close(saved_out)
            if temp is not None:
                temp.close()

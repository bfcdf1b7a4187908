"""The worker's side of the protocol: JSON lines, commands on fd 3, events on fd 4 (never
stdout: cases print). See docs/reference/worker-protocol.md."""

from __future__ import annotations

import json
import math
import os
from typing import Any

COMMANDS_FD = 3
# Raised when the messages change; the engine refuses a worker that speaks another version.
PROTOCOL_VERSION = 2
EVENTS_FD = 4
MESSAGE_CHARS = 2000
LOG_TAIL_BYTES = 4096
# Any other string field longer than this is cut, so one runaway value cannot make a record
# too big for the supervisor to take in.
FIELD_CHARS = 64 * 1024


def _plain(value: Any) -> Any:
    """A JSON-safe copy: valid UTF-8 strings, no NaN/Infinity (the C++ parser rejects both)."""
    if isinstance(value, str):
        return value.encode("utf-8", "replace").decode("utf-8")
    if isinstance(value, bool) or value is None or isinstance(value, int):
        return value
    if isinstance(value, float):
        if math.isfinite(value):
            return value
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "item") and callable(value.item):
        try:
            return _plain(value.item())
        except (TypeError, ValueError, RuntimeError):
            pass
    return str(value)


def trim_record(record: dict[str, Any]) -> dict[str, Any]:
    """Keeps message and log fields to their documented sizes."""
    out = dict(record)
    for key, value in out.items():
        if not isinstance(value, str):
            continue
        if key == "message" and len(value) > MESSAGE_CHARS:
            out[key] = value[: MESSAGE_CHARS - 3] + "..."
        elif key == "log_tail" and len(value) > LOG_TAIL_BYTES:
            out[key] = value[-LOG_TAIL_BYTES:]
        elif len(value) > FIELD_CHARS:
            out[key] = value[: FIELD_CHARS - 3] + "..."
    return out


def encode(message: dict[str, Any]) -> bytes:
    return json.dumps(_plain(message), ensure_ascii=False, separators=(",", ":")).encode() + b"\n"


def write_all(fd: int, data: bytes) -> None:
    """Writes every byte: a large record must reach the supervisor as one whole line."""
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


class Channel:
    """The two pipes to the supervisor."""

    def __init__(self, commands_fd: int = COMMANDS_FD, events_fd: int = EVENTS_FD) -> None:
        self.commands_fd = commands_fd
        self.events_fd = events_fd

    def send(self, message: dict[str, Any]) -> None:
        write_all(self.events_fd, encode(message))

"""The fork server the supervisor runs: `python -m capmap.worker --settings JSON REGISTRY...`.

It imports torch, the registry and the probes once, then forks one child per task, so a case
that crashes, hangs or corrupts interpreter state costs only its own child, and every child
starts from the same clean, warm parent. Messages are JSON lines: commands arrive on fd 3,
events leave on fd 4 (never stdout: cases print). See docs/reference/worker-protocol.md.
"""

from __future__ import annotations

from capmap.torch_threads import cap_threads_before_torch
from capmap.worker.entry import main
from capmap.worker.process_control import claim_compile_cache
from capmap.worker.protocol import PROTOCOL_VERSION, encode, trim_record

__all__ = [
    "PROTOCOL_VERSION",
    "cap_threads_before_torch",
    "claim_compile_cache",
    "encode",
    "main",
    "trim_record",
]

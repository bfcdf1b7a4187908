"""What a capture path declares about itself: the plug-in contract of the probes package.

A path is one module under `capmap.probes` that defines `PATH` (a `CapturePath`) and
`probe(ctx) -> record`; optionally `prepare()` (per-process set-up, done in the worker before it
forks) and `warm()` (one use on tiny inputs, paying first-use costs before the fork). The worker
announces every path in its hello; the engine, the store, merge and the pages take names,
labels, order and statuses from that announcement, so a new path is a new module here.
A path module imports only what its declaration needs at module level: the catalog imports
every module of the package to find the paths, also for `capmap list`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

# Statuses run_task writes for any path without running its probe.
TASK_STATUSES: Mapping[str, str] = {
    "skipped": "n/a",
    "eager-fail": "n/a",
    "no-tensor-output": "n/a",
    # Captured, but no input reaches the graph: what it computes is baked in (see run_task).
    "constant": "constant",
}


@dataclass(frozen=True)
class CapturePath:
    name: str  # what --paths, the store and the snapshot call it: "export-dynamic"
    label: str  # the page's column heading: "torch.export, dynamic shapes"
    short: str  # cause lines name the paths that share a cause: "export dyn"
    order: int  # the page's column order; also breaks ties in the run order
    description: str  # one line for `capmap list --paths`
    statuses: Mapping[str, str]  # raw status -> page status (ok, ok-breaks, fail, ...)
    fields: tuple[str, ...] = ()  # record fields the path adds to status, seconds and errors
    builds_on: tuple[str, ...] = ()  # paths whose result it reuses when they ran in the task
    fail_status: str = "fail"  # an exception the probe did not expect
    default: bool = False  # probed when `capmap run` gets no --paths
    reference: bool = False  # eager: what the others are compared with, never a column

    def announce(self) -> dict[str, Any]:
        """The hello's entry for this path."""
        return {
            "name": self.name,
            "label": self.label,
            "short": self.short,
            "order": self.order,
            "description": self.description,
            "statuses": {**TASK_STATUSES, **self.statuses},
            "fields": list(self.fields),
            "builds_on": list(self.builds_on),
            "default": self.default,
            "reference": self.reference,
        }

"""What a capture path declares about itself: the plug-in contract of the probes package.

A path is one module under `capmap.probes` that defines `PATH` (a `CapturePath`) and
`probe(ctx) -> record`; optionally `prepare()` (per-process set-up, done in the worker before it
forks) and `warm()` (one use on tiny inputs, paying first-use costs before the fork). The worker
announces every path in its hello; the engine, the store, merge and the pages take names,
labels, order and statuses from that announcement, so a new path is a new module here.
A path module imports only what its declaration needs at module level: the catalog imports
every module of the package to find the paths, also for `capmap list`.

Besides its statuses, a path declares once: its settings with their defaults (`settings`), the
packages whose versions decide its results (`packages`, part of the run key), and how a script
reproduces one of its failures outside capmap (`repro_steps(spec) -> ReproSteps`, see
`capmap.repro.script`). Paths outside this package join by naming their modules in
`CAPMAP_PATH_MODULES` (comma-separated), so a new path is one new module.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

# Statuses run_task writes for any path without running its probe.
TASK_STATUSES: Mapping[str, str] = {
    "skipped": "n/a",
    "eager-fail": "n/a",
    "no-tensor-output": "n/a",
    # Captured, but no input reaches the graph: what it computes is baked in (see run_task).
    "constant": "constant",
}


# Page statuses that say the cell is no failure: a repro script has nothing to reproduce.
PASSING_PAGE_STATUSES = frozenset({"ok", "ok-breaks", "ok-unverified", "constant", "n/a"})


def is_failing(statuses: Mapping[str, str], status: str) -> bool:
    """Whether a raw status is a failure under a path's announced statuses (raw -> page status).
    The engine's own statuses (crashed, timeout, oom) are failures of every path."""
    return statuses.get(status, "fail") not in PASSING_PAGE_STATUSES


@dataclass(frozen=True)
class ReproSpec:
    """What a path's repro steps may depend on: the run's settings and the case's record."""

    settings: Mapping[str, Any]  # the run's settings, every path's defaults filled in
    case: Any  # the registry's Case (its check flag, tags, hints)
    record: Mapping[str, Any]  # the record the script reproduces
    siblings: Mapping[str, Mapping[str, Any]]  # the case's records of every path, by path


@dataclass(frozen=True)
class ReproSteps:
    """The lines a repro script needs for one path: imports at its top, and the body of
    `reproduce()` after the eager `reference` is computed. The body may use `call`,
    `fresh_inputs`, `capture_module`, `capture_inputs`, `output_tensors`, `captured_tensors`,
    `verdict(reference, outputs)` and `failed(status, exc)`, and returns the outcome's words."""

    imports: tuple[str, ...]
    body: tuple[str, ...]


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
    settings: Mapping[str, Any] = field(default_factory=dict)  # setting -> default ("opset": 18)
    packages: tuple[str, ...] = ()  # distributions whose versions decide its results
    extra: str = ""  # the pip extra of capmap that installs `packages` ("onnx": capmap[onnx])
    # The command that installs `packages` when a pip extra is not the way: a side environment
    # for a package whose releases pin their own torch.
    install: str = ""
    # Its probe calls torch.export at the traced shapes (`ProbeContext.library_trace` with a
    # kind): the task's rehearsal records the library code such an export runs (probes/rehearsal).
    static_export: bool = False

    def failing(self, status: str) -> bool:
        """A raw status this path writes for a failure (page status fail, mismatch, crash ...)."""
        return is_failing({**TASK_STATUSES, **self.statuses}, status)

    def missing_packages(self) -> list[str]:
        """Those of `packages` this environment lacks: the path cannot run here without them."""
        import importlib.metadata

        missing = []
        for name in self.packages:
            try:
                importlib.metadata.distribution(name)
            except importlib.metadata.PackageNotFoundError:
                missing.append(name)
        return missing

    def install_hint(self, missing: list[str]) -> str:
        """The one command that installs what the path lacks."""
        if self.install:
            return self.install
        if self.extra:
            return f"pip install 'capmap[{self.extra}]'"
        return "pip install " + " ".join(missing)

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
            "settings": dict(self.settings),
            "packages": list(self.packages),
        }

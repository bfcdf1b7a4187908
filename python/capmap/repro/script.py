"""Writes the script that reproduces one case × path outside capmap.

The script does what the probe does, step by step and in plain sight: the eager reference run,
then the capture path's own torch calls (torch.export.export; torch.onnx.export(dynamo=True),
the ONNX checker and ONNX Runtime; torch.compile), then the comparison with eager. Its last line
is `outcome: STATUS (ErrorType): MESSAGE` in the words of the record.

This module writes the header, the steps and the files; the parts come from their own modules:
where the target comes from (target.py), the case as the capture paths see it (case_code.py),
the path's steps (its probe module's `repro_steps`) and capmap's helpers the script carries
(copied_helpers.py).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import torch

from capmap.cases import Case
from capmap.deferred import resolve
from capmap.probes import catalog
from capmap.probes.path import ReproSpec, ReproSteps
from capmap.random_state import SEED_LINES
from capmap.repro.case_code import case_lines, flattening, input_layout
from capmap.repro.cells import Cell, RunInfo
from capmap.repro.copied_helpers import ROOT_CAUSE, helper_source
from capmap.repro.target import Target, choose_target, literal

_SAFE_NAME = re.compile(r"[^A-Za-z0-9_.-]+")
_MESSAGE_COMMENT_CHARS = 300
# A file being written is `.NAME.PID.tmp` beside it until it is renamed into place.
TEMP_SUFFIX = ".tmp"


def file_stem(case_name: str, path: str) -> str:
    """`op[variant]` × onnx → `op_variant_.onnx`: a file name without shell-special characters."""
    return f"{_SAFE_NAME.sub('_', case_name)}.{path}"


def _first_line(text: str) -> str:
    line = next((s.strip() for s in str(text).splitlines() if s.strip()), "")
    return line if len(line) <= _MESSAGE_COMMENT_CHARS else line[: _MESSAGE_COMMENT_CHARS - 3] + "..."


def _versions_line(run: RunInfo) -> str:
    lib = run.library or {}
    parts = []
    if lib.get("name"):
        revision = lib.get("revision") or lib.get("version") or "?"
        parts.append(f"{lib['name']} {lib.get('version') or '?'} (revision {revision})")
    named = [*catalog.versioned_packages(), "python"]
    for name in [*named, *sorted(set(run.versions) - set(named))]:
        if run.versions.get(name):
            parts.append(f"{name} {run.versions[name]}")
    return ", ".join(parts)


def expected_outcome(record: dict[str, Any]) -> str:
    status = str(record.get("status", ""))
    if record.get("signal"):
        return f"{status}: killed by {record['signal']} (no outcome line)"
    if status == "timeout":
        return f"timeout: still running after {record.get('limit_seconds', '?')} s"
    if status == "oom":
        return f"oom: more than {record.get('limit_bytes', '?')} bytes resident"
    if status == "crashed":
        return f"crashed: exit {record.get('exit', '?')}"
    kind = f" ({record['error_type']})" if record.get("error_type") else ""
    message = _first_line(record.get("message", ""))
    return f"{status}{kind}: {message}" if message else f"{status}{kind}"


def script_text(case: Case, cell: Cell, run: RunInfo, target: Target, pt_name: str) -> str:
    """The whole script for `cell` (its case, one capture path)."""
    settings = {**catalog.default_settings(), **(run.settings or {})}
    path = catalog.module(cell.path)
    make_steps = getattr(path, "repro_steps", None)
    if make_steps is None:
        raise ValueError(f"no repro script for path {cell.path!r}: its module has no repro_steps")
    steps: ReproSteps = make_steps(
        ReproSpec(settings=settings, case=case, record=cell.record, siblings=cell.siblings)
    )
    flat = flattening(case, settings)
    layout = input_layout(case) if flat else None
    settings_text = ", ".join(f"{k} {v}" for k, v in sorted((run.settings or {}).items()))
    lines = [
        f"# Reproduces capmap's record of case {case.name!r}, path {cell.path!r}, outside capmap.",
        f"# Recorded with {_versions_line(run)}",
        f"# (run key {run.run_key}; settings: {settings_text}).",
        f"# Expected outcome: {expected_outcome(cell.record)}",
        f"# Case registered at {case.where}.",
    ]
    if target.saved:
        what = "Inputs and target" if "target" in target.saved else "Inputs"
        lines.append(f"# {what} are saved beside it in {pt_name}.")
    lines.append("# The last line printed is the outcome, in the words of the record.")
    lines += ["", "import copy", "import dataclasses", "import random"]
    lines += ["from dataclasses import dataclass, field"]
    lines += ["from pathlib import Path", "from typing import Any", "", "import numpy as np", "import torch"]
    lines += list(steps.imports)
    lines += [f"import {module}" for module in target.imports]
    lines += ["", "torch.set_num_threads(1)  # capmap gives each task one thread"]
    if target.saved:
        lines.append(f"saved = torch.load(Path(__file__).with_name({pt_name!r}), weights_only=False)")
    lines += target.lines
    if target.from_registry:
        lines += ["inputs = case.inputs", "kwargs = case.kwargs"]
    else:
        lines.append('inputs = saved["inputs"]')
        kwargs_text = literal(case.kwargs) if case.kwargs else "{}"
        lines.append(f"kwargs = {kwargs_text}" if kwargs_text is not None else 'kwargs = saved["kwargs"]')
    lines += case_lines(case, target, flat, layout)
    ok_text = '"ok"' if case.check else '"ok-unverified"'
    lines += [
        "",
        "",
        "def verdict(reference, outputs):",
        f"    tolerance = dict(check={case.check}, atol={case.atol!r}, rtol={case.rtol!r})",
        "    result = compare(reference, outputs, **tolerance)",
        "    if not result.agrees:",
        '        return f"mismatch: {result.detail}"',
        '    return "ok-unverified" if result.vacuous else ' + ok_text,
        "",
        "",
        "def reproduce():",
        "    # The eager reference, as every capmap task runs it first, from a seeded random state.",
        *[f"    {line}" for line in SEED_LINES],
        "    with torch.no_grad():",
        "        reference = [t.detach() for t in output_tensors(call(*fresh_inputs()))]",
        "    # The path starts from the same random state.",
        *[f"    {line}" for line in SEED_LINES],
    ]
    lines += list(steps.body)
    lines += [
        "",
        ROOT_CAUSE.strip("\n"),
        "",
        "",
        "# capmap's output flattening and comparison, copied from capmap so that nothing above needs it.",
        "",
        helper_source(flat),
        "",
        'if __name__ == "__main__":',
        '    print("outcome:", reproduce(), flush=True)',
    ]
    return "\n".join(lines) + "\n"


def write_script(case: Case, cell: Cell, run: RunInfo, out: Path) -> Path:
    """Writes `out` (and the `.pt` file beside it when the script needs one); returns `out`.

    Each file appears whole or not at all (written aside, then renamed), the `.pt` file first:
    a reader never finds a script whose saved inputs are missing or half written."""
    out.parent.mkdir(parents=True, exist_ok=True)
    case = _inputs_built(case)
    target = choose_target(case)
    pt_file = out.with_suffix(".pt")
    text = script_text(case, cell, run, target, pt_file.name)
    if target.saved:
        _replace(pt_file, lambda tmp: torch.save(target.saved, tmp))
    else:
        pt_file.unlink(missing_ok=True)
    _replace(out, lambda tmp: tmp.write_text(text, encoding="utf-8"))
    return out


def _inputs_built(case: Case) -> Case:
    """The case with deferred inputs built (a script saves or spells out what the probes got);
    a deferred target stays a constructor call."""
    inputs = [resolve(v) for v in case.inputs]
    kwargs = {k: resolve(v) for k, v in case.kwargs.items()}
    return replace(case, inputs=inputs, kwargs=kwargs)


def temp_name(out: Path) -> Path:
    """Where `out` is written before it is renamed into place: hidden, named by the writer's pid."""
    return out.with_name(f".{out.name}.{os.getpid()}{TEMP_SUFFIX}")


def _replace(out: Path, write: Callable[[Path], object]) -> None:
    tmp = temp_name(out)
    try:
        write(tmp)
        os.replace(tmp, out)
    finally:
        tmp.unlink(missing_ok=True)

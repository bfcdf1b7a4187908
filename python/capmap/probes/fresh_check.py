"""A capture whose outcome depends on what ran before it in the process, measured again in a
fresh one: the process a user's own export script is.

`torch.onnx.export` falls back to a strict (dynamo) export when the non-strict one fails, and
dynamo decides part of what it may trace from state its first use in a process sets. The strict
export of `kornia.geometry.epipolar.random_intrinsics` fails in a fresh process (it calls
`torch.distributions.constraints.is_dependent`, "marked as skipped") and succeeds once anything
has been compiled, even with `backend="eager"` and after `torch._dynamo.reset()`. A kept child
that compiled another case before is such a process, so a cell reached through that fallback
is measured again here, in a new interpreter, and that record is the cell when it differs.

So is a case whose values are not compared (it draws random numbers: RANSAC, random
augmentations) when a capture's output holds non-finite values: which random numbers the
captured graph draws depends on how dynamo split it, which the process's history can change.
`HomographyTracker`'s compile gave 2 non-finite values in a kept child after other tasks, and
finite values when run alone, three times out of three.

    python -m capmap.probes.fresh_check --case NAME --path onnx --settings JSON REGISTRY...
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from typing import Any

# Set in the fresh process: its own records are final (no check of a check).
ENV = "CAPMAP_FRESH_CHECK"
# The fresh process's answer, on a line of its own among whatever the capture printed.
MARK = "capmap-fresh-record: "
# Fields that describe the warm child's trace of the case, not the fresh process's cell.
_CASE_CODE = ("files", "functions")


def depends_on_process(path: str, record: dict[str, Any], compared: bool = True) -> str | None:
    """Where the cell's outcome may come from the process, the words for the process it ran in
    (the note of a fresh record that differs); None otherwise. Either the ONNX exporter's strict
    fallback ran (its non-strict export failed, and the export path left no program to convert),
    or a case whose values are not `compared` captured non-finite values."""
    if path == "onnx" and record.get("strategy") == "strict" and record.get("shared_trace") is False:
        return "where torch.compile has already run"
    if not compared and record.get("status") == "mismatch" and record.get("check_failed") == "finite":
        return "after other cases in the same process"
    return None


def settled(
    case_name: str, path: str, record: dict[str, Any], settings: dict[str, Any], *, compared: bool = True
) -> dict[str, Any]:
    """`record`, or the fresh process's record of the same cell where the warm one went through
    a route that depends on the process and the fresh one ended otherwise."""
    where = depends_on_process(path, record, compared)
    if os.environ.get(ENV) == "1" or where is None:
        return record
    fresh = fresh_record(case_name, path, settings)
    if fresh is None:
        record["fresh_check"] = "not run: the fresh process gave no record"
        return record
    if fresh.get("status") == record.get("status"):
        record["fresh_check"] = "same"
        return record
    for key in _CASE_CODE:
        fresh.pop(key, None)
    fresh["fresh_check"] = f"a fresh process gives this; {where}, {record.get('status')}"
    # The time a user's call takes is the fresh one; the cell's own seconds add the warm try.
    fresh["seconds"] = round(float(record.get("seconds") or 0) + float(fresh.get("seconds") or 0), 6)
    return fresh


def fresh_record(case_name: str, path: str, settings: dict[str, Any]) -> dict[str, Any] | None:
    """The record of `case_name` on `path` from a new Python process that loads the registry
    this worker loaded and probes the eager reference, then `path`; None when it gave none."""
    from capmap import registry

    specs = registry.loaded_specs()
    if specs is None:
        return None
    argv = [sys.executable, "-m", "capmap.probes.fresh_check", "--case", case_name, "--path", path]
    argv += ["--settings", json.dumps(settings, default=str), *specs]
    # In the task's process group: a time limit or memory limit that ends the task ends it too.
    done = subprocess.run(argv, env={**os.environ, ENV: "1"}, capture_output=True, text=True, check=False)
    answers = [line[len(MARK) :] for line in done.stdout.splitlines() if line.startswith(MARK)]
    if done.returncode != 0 or not answers:
        return None
    found = json.loads(answers[-1])
    return found if isinstance(found, dict) else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--case", required=True)
    parser.add_argument("--path", required=True)
    parser.add_argument("--settings", default="{}")
    parser.add_argument("registries", nargs="*")
    args = parser.parse_args(argv)
    os.environ[ENV] = "1"

    from capmap.torch_threads import cap_threads_before_torch

    cap_threads_before_torch()
    from capmap import registry
    from capmap.probes.task import run_task

    case = registry.load(args.registries).by_name().get(args.case)
    if case is None:
        print(f"capmap.probes.fresh_check: no case named {args.case!r}", file=sys.stderr)
        return 2
    records: dict[str, Any] = {}

    def emit(event: dict[str, Any]) -> None:
        if event.get("type") == "record":
            records[event["path"]] = event["record"]

    run_task(case, ["eager", args.path], json.loads(args.settings), emit)
    print(MARK + json.dumps(records.get(args.path), default=str), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Prints the figures of a survey run as Markdown: what surveys/*/README.md quotes.

    python scripts/survey_figures.py SNAPSHOT [--log RUN_STDERR] [--time TIME_V_OUTPUT]

From the snapshot: cases, cells and statuses per path (supported, constant: captured with no
graph input, failing, crashed, timed out, out of memory, skipped). From the run's log
(optional): its summary line (wall time, tasks, worker restarts). From `/usr/bin/time -v`
output (optional): the CPU of the whole run.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path

SUPPORTED = ("ok", "ok-breaks", "ok-unverified")
NOT_PROBED = ("skipped", "eager-fail", "no-tensor-output")
ABNORMAL = ("crashed", "timeout", "oom")


def summary_fields(log: Path) -> dict[str, str]:
    lines = [line for line in log.read_text(errors="replace").splitlines() if line.startswith("summary:")]
    if not lines:
        return {}
    return dict(item.split("=", 1) for item in lines[-1].split()[1:] if "=" in item)


def time_fields(path: Path) -> dict[str, float]:
    text = path.read_text(errors="replace")
    out: dict[str, float] = {}
    for key, pattern in (
        ("user", r"User time \(seconds\): ([\d.]+)"),
        ("sys", r"System time \(seconds\): ([\d.]+)"),
        ("max_rss_kb", r"Maximum resident set size \(kbytes\): (\d+)"),
    ):
        match = re.search(pattern, text)
        if match:
            out[key] = float(match.group(1))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("snapshot", type=Path)
    parser.add_argument("--log", type=Path, help="the run's stderr (holds its summary line)")
    parser.add_argument("--time", type=Path, help="`/usr/bin/time -v` output of the run")
    args = parser.parse_args()
    try:
        snapshot = json.loads(args.snapshot.read_text())
    except (OSError, ValueError) as exc:
        print(f"survey_figures: {args.snapshot}: {exc}", file=sys.stderr)
        return 2
    header, cases = snapshot["header"], snapshot["cases"]
    paths = header["paths"]
    labels = {p: header.get("path_info", {}).get(p, {}).get("label", p) for p in paths}
    selection = header.get("selection", {})
    print(
        f"- cases: {len(cases)} of {selection.get('registry_cases', '?')} in the registry; "
        f"complete: {str(header.get('complete')).lower()}; paths: {', '.join(paths)}"
    )
    versions = header.get("versions", {})
    library = header.get("library", {})
    # The exporters, then any other package a path declared (executorch), by name.
    named = ["torch", "onnx", "onnxruntime", "onnxscript"]
    named += sorted(k for k in versions if k not in named and k != "python")
    listed = ", ".join(f"{name} {versions.get(name)}" for name in named if versions.get(name))
    machine = f"{header.get('cores')} cores ({header.get('cpu')})"
    print(f"- {library.get('name')} {library.get('version')}, {listed}; {machine}")
    if args.log:
        s = summary_fields(args.log)
        if s:
            wall = float(s.get("wall_s", 0))
            print(
                f"- wall time: {wall / 60:.1f} min ({s.get('tasks')} tasks, {s.get('workers')} job slots, "
                f"worker restarts {s.get('worker_restarts')}, fresh re-runs {s.get('fresh_reruns')}, "
                f"supervisor CPU {s.get('capmap_cpu_percent')} % of one core)"
            )
    if args.time:
        t = time_fields(args.time)
        if "user" in t:
            cpu = t["user"] + t.get("sys", 0.0)
            print(
                f"- CPU (whole process tree, compilers included): {cpu / 60:.1f} min "
                f"({t.get('sys', 0.0) / cpu * 100:.0f} % system), {cpu / max(1, len(cases)):.1f} s per case"
            )
    print()
    print("| path | probed | supported | constant | fail | mismatch | crashed | timeout | oom | not probed |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for path in paths:
        statuses = Counter((c.get("paths", {}).get(path) or {}).get("status", "missing") for c in cases)
        probed = sum(n for st, n in statuses.items() if st not in NOT_PROBED and st != "missing")
        supported = sum(statuses[s] for s in SUPPORTED)
        mismatch, constant = statuses["mismatch"], statuses["constant"]
        abnormal = [statuses[s] for s in ABNORMAL]
        fail = probed - supported - constant - mismatch - sum(abnormal)
        share = f" ({supported / probed * 100:.1f} %)" if probed else ""
        not_probed = sum(statuses[s] for s in NOT_PROBED) + statuses["missing"]
        print(
            f"| {labels[path]} | {probed} | {supported}{share} | {constant} | {fail} | {mismatch} | "
            + " | ".join(str(n) for n in abnormal)
            + f" | {not_probed} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

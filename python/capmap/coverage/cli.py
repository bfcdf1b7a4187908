"""`capmap coverage` (`python -m capmap.coverage`): the report as text or JSON, and the exit code
of `--fail-under`."""

from __future__ import annotations

import argparse
import json
import os
import sys

from capmap import registry as _registry
from capmap.cases import RegistryError
from capmap.coverage.matching import measure
from capmap.coverage.report import format_text

# `capmap coverage --help` says what the command does in one line.
DESCRIPTION = "How much of a library's public API the registry covers."


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="capmap coverage", description=DESCRIPTION)
    parser.add_argument("registries", nargs="*", help="registry files, folders or modules")
    parser.add_argument("--fail-under", type=float, default=None, metavar="PERCENT")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args(argv)
    try:
        reg = _registry.load(args.registries)
        report = measure(reg)
    except RegistryError as exc:
        print(f"capmap: {exc}", file=sys.stderr)
        return 2
    text = json.dumps(report.to_json(), indent=2, sort_keys=True) if args.json else format_text(report)
    try:
        print(text, flush=True)
    except BrokenPipeError:
        # A reader such as `head` went away; the verdict still goes out as the exit code.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    if args.fail_under is not None:
        # Both figures must reach the threshold.
        short = [
            f"{label} {percent:.1f}%"
            for label, percent in (("coverage", report.percent), ("method coverage", report.methods_percent))
            if percent < args.fail_under
        ]
        if short:
            if not args.json:
                print(f"{' and '.join(short)} under {args.fail_under:g}%", file=sys.stderr)
            return 1
    return 0

"""A stratified sample of a registry's operators, for surveys that cannot cover every case.

Reads a full snapshot (which lists every case with its group and operator), takes the same
share of operators from every group (at least one each), chosen by a hash of the name so the
sample is the same on every machine, and prints them as `--only` arguments for `capmap run`:

    python scripts/stratified_sample.py surveys/kornia/snapshot.json --cases 400 > sample.args
    capmap run --all $(cat sample.args) --python ENV/bin/python --store S.db

`--only` selects by name prefix, so an operator brings every case whose name starts with it;
the count printed on stderr is of those cases, which is what the run will probe.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
from collections import defaultdict
from pathlib import Path


def _rank(name: str) -> str:
    return hashlib.sha256(name.encode()).hexdigest()


def sample(cases: list[dict], share: float) -> list[str]:
    operators_by_group: dict[str, set[str]] = defaultdict(set)
    for case in cases:
        operators_by_group[case.get("group") or "-"].add(case.get("operator") or case["name"])
    chosen: list[str] = []
    for group in sorted(operators_by_group):
        operators = sorted(operators_by_group[group], key=_rank)
        chosen += operators[: max(1, math.ceil(len(operators) * share))]
    return sorted(chosen)


def selected_cases(cases: list[dict], operators: list[str]) -> list[str]:
    return [c["name"] for c in cases if any(c["name"].startswith(op) for op in operators)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("snapshot", type=Path, help="snapshot.json of a full run")
    parser.add_argument("--cases", type=int, default=400, help="at least this many cases")
    parser.add_argument("--list", action="store_true", help="print case names, not --only args")
    args = parser.parse_args(argv)
    try:
        cases = json.loads(args.snapshot.read_text())["cases"]
    except (OSError, ValueError, KeyError, TypeError) as error:
        print(f"stratified_sample: {args.snapshot}: not a snapshot ({error})", file=sys.stderr)
        return 2
    share = 0.0
    operators: list[str] = []
    names: list[str] = []
    # Grow the share until the prefixes select enough cases.
    while len(names) < min(args.cases, len(cases)):
        share += 0.01
        operators = sample(cases, share)
        names = selected_cases(cases, operators)
    if args.list:
        print("\n".join(names))
    else:
        spaced = [op for op in operators if op.split() != [op]]
        if spaced:
            print(f"stratified_sample: operator {spaced[0]!r} has spaces", file=sys.stderr)
            return 2
        print(" ".join(f"--only {op}" for op in operators))
    groups = len({c.get("group") for c in cases})
    print(
        f"stratified_sample: {len(operators)} operators ({share:.0%} of each of {groups} groups) "
        f"select {len(names)} of {len(cases)} cases",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

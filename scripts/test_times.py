"""Where a test run's CPU went, by module: the test-seconds (setup, call and teardown) of each
test module and the share of the whole, read from the JUnit file pytest writes.

    python scripts/test_times.py build/pytest-times.xml [--top N]

scripts/test.sh writes that file on every run and prints this table after pytest's own 25
slowest tests, so a CI log tells where the minutes went module by module, not only test by
test. A module's figure is what its tests cost one pytest worker, fixtures included: two workers
share the run, so the wall time is about half the sum.
"""

from __future__ import annotations

import argparse
import sys
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path


def seconds_by_module(junit: Path) -> tuple[dict[str, float], Counter[str]]:
    """(seconds, tests) of each module: a test's classname is its module's dotted path."""
    seconds: dict[str, float] = {}
    tests: Counter[str] = Counter()
    for case in ET.parse(junit).getroot().iter("testcase"):
        module = case.get("classname", "?").rsplit(".", 1)[-1]
        seconds[module] = seconds.get(module, 0.0) + float(case.get("time", "0") or 0)
        tests[module] += 1
    return seconds, tests


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("junit", type=Path, help="the file pytest's --junitxml wrote")
    parser.add_argument("--top", type=int, default=15, help="modules to show (default 15)")
    args = parser.parse_args()
    try:
        seconds, tests = seconds_by_module(args.junit)
    except (OSError, ET.ParseError) as exc:
        print(f"test_times: {args.junit}: {exc}", file=sys.stderr)
        return 2
    total = sum(seconds.values())
    print(f"test-seconds by module ({total:.0f} in all, {sum(tests.values())} tests):")
    for module, spent in sorted(seconds.items(), key=lambda item: -item[1])[: args.top]:
        share = 100 * spent / total if total else 0.0
        print(f"{spent:8.1f} s {share:5.1f} %  {tests[module]:3d} tests  {module}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

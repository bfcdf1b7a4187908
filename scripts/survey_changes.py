"""How many cells changed between two publications of a survey, and of which kind.

    python scripts/survey_changes.py OLD_SNAPSHOT NEW_SNAPSHOT [--list]

A cell is one case x capture path that both snapshots hold. Each changed cell gets the first
kind that explains it:
- constant: it is `constant` now (a capture that takes no graph input), where it was not;
- receiver: its status moved and its object is a graph input now (`receiver ...` among
  `flattened`);
- inputs: the case's eager outputs or note changed (the registry gave it other inputs);
- mismatch kind: a mismatch still, with a cause that says which kind;
- harness: its status changed for none of the reasons above (a fault of the old harness);
- cause: the same status with another cause (a new or better rule).
Prints a Markdown table of the kinds and the status moves per path; `--list` names every cell.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path
from typing import Any

KINDS = ("constant", "receiver", "inputs", "mismatch kind", "harness", "cause")


def kind_of(old_case: dict[str, Any], new_case: dict[str, Any], path: str) -> str | None:
    old, new = old_case["paths"][path], new_case["paths"][path]
    old_status, new_status = old.get("page_status"), new.get("page_status")
    if old_status == new_status and old.get("cause") == new.get("cause"):
        return None
    if new_status == "constant" and old_status != "constant":
        return "constant"
    receiver = any(line.startswith("receiver ") for line in new.get("flattened", []))
    if old_status != new_status and receiver:
        return "receiver"
    old_eager, new_eager = old_case["paths"].get("eager", {}), new_case["paths"].get("eager", {})
    if old_eager.get("outputs") != new_eager.get("outputs") or old_case.get("note") != new_case.get("note"):
        return "inputs"
    if old_status == new_status == "mismatch":
        return "mismatch kind"
    if old_status != new_status:
        return "harness"
    return "cause"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--list", action="store_true", help="name every changed cell")
    args = parser.parse_args()
    old = {c["name"]: c for c in json.loads(Path(args.old).read_text())["cases"]}
    new_snapshot = json.loads(Path(args.new).read_text())
    paths = [p for p in new_snapshot["header"]["paths"] if p != "eager"]
    kinds: Counter[str] = Counter()
    moves: Counter[tuple[str, str, str]] = Counter()
    listed: list[str] = []
    cells = 0
    for new_case in new_snapshot["cases"]:
        old_case = old.get(new_case["name"])
        if old_case is None:
            continue
        for path in paths:
            if path not in old_case["paths"] or path not in new_case["paths"]:
                continue
            cells += 1
            kind = kind_of(old_case, new_case, path)
            if kind is None:
                continue
            kinds[kind] += 1
            before = old_case["paths"][path].get("page_status")
            after = new_case["paths"][path].get("page_status")
            if before != after:
                moves[(path, str(before), str(after))] += 1
            listed.append(f"{kind}: {new_case['name']} x {path}: {before} -> {after}")
    print(f"{sum(kinds.values())} of {cells} cells changed\n")
    print("| kind | cells |\n|---|---:|")
    for kind in KINDS:
        print(f"| {kind} | {kinds[kind]} |")
    print("\n| path | before | now | cells |\n|---|---|---|---:|")
    for (path, before, after), n in sorted(moves.items(), key=lambda item: (item[0][0], -item[1])):
        print(f"| {path} | {before} | {after} | {n} |")
    if args.list:
        print()
        print("\n".join(sorted(listed)))


if __name__ == "__main__":
    main()

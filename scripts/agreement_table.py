"""Renders the agreement of a capmap survey with Kornia's data file, and the explanation of every
disagreement, as Markdown.

    capmap diff export_support.json snapshot.json --format json > diff.json
    python scripts/agreement_table.py diff.json explanations.tsv > agreement.md

`explanations.tsv` holds one row per disagreement that was investigated: path, kornia_case,
capmap_case, kornia_status, capmap_status, category, evidence. A disagreement of the diff
that no row explains is listed as unexplained; an explained row that the diff no longer
shows (a capmap flaw since fixed) is listed as resolved.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from collections import Counter
from pathlib import Path

# What the reader should make of each category.
CATEGORIES = {
    "vocabulary": "capmap says `constant` (captured, no input reaches the graph); Kornia's scripts say ok",
    "configuration-differs": "the two surveys call the operator differently (inputs, arguments, module)",
    "kornia-code-changed": "Kornia's checkout and kornia 0.9.0 differ in the code that decides it",
    "kornia-script-flaw": "Kornia's status is not what a plain call gives in this environment",
    "capmap-flaw": "capmap's status was not what a plain call gives; fixed, the cell now agrees",
    "capmap-flaw-open": "capmap's status is not what a plain call gives; not fixed yet",
    "environment": "the machine or packages differ, the calls are the same",
}
KINDS = ("regressions", "fixes", "status_changes", "cause_changes", "graph_break_changes")


def disagreements(diff: dict) -> dict[tuple[str, str], dict]:
    """(path, capmap case) → the diff's entry, for every paired cell whose status differs."""
    found = {}
    for kind in KINDS:
        for entry in diff.get(kind, []):
            if kind == "graph_break_changes" and entry["old_status"] == entry["new_status"]:
                continue  # the same status with another count of breaks
            found[(entry["path"], entry["case"])] = entry
    return found


def same_call_table(
    agreement: dict[str, dict],
    open_cells: dict[tuple[str, str], dict],
    explained: dict[tuple[str, str], dict],
) -> list[str]:
    """Agreement on the cells where both surveys call the operator the same way: what Kornia's
    own scripts, run again in this environment, can be compared with. A cell explained as
    `configuration-differs` measures another call, so it leaves the count."""
    other_call: Counter[str] = Counter()
    for key, entry in open_cells.items():
        row = explained.get(key)
        if row is None or row["category"] != "configuration-differs":
            continue
        if entry["new_status"] == "constant" and entry["old_status"].startswith("ok"):
            continue  # agrees once constant is read as captured; stays in the count
        other_call[key[0]] += 1
    out = [
        "| path | cells with the same call | same status, constant read as captured |",
        "|---|---:|---:|",
    ]
    total_cells = total_same = 0
    for path, a in sorted(agreement.items()):
        cells = a["compared"] - other_call[path]
        total_cells, total_same = total_cells + cells, total_same + a["same_captured_status"]
        out.append(f"| {path} | {cells} | {a['same_captured_status'] / cells:.1%} |")
    out.append(f"| all | {total_cells} | {total_same / total_cells:.1%} |")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("diff", type=Path, help="capmap diff KORNIA_FILE SNAPSHOT --format json")
    parser.add_argument("explanations", type=Path, help="TSV of investigated disagreements")
    args = parser.parse_args(argv)
    diff = json.loads(args.diff.read_text())
    with args.explanations.open(newline="") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    open_cells = disagreements(diff)
    explained = {(r["path"], r["capmap_case"]): r for r in rows}
    agreement = diff["pairing"].get("agreement", {})

    out = ["| path | paired cells | same status | same status, constant read as captured | same verdict |"]
    out.append("|---|---:|---:|---:|---:|")
    total = Counter()
    for path, a in sorted(agreement.items()):
        n = a["compared"]
        total.update(a)
        out.append(
            f"| {path} | {n} | {a['same_status'] / n:.1%} | "
            f"{a['same_captured_status'] / n:.1%} | {a['same_verdict'] / n:.1%} |"
        )
    n = total["compared"]
    out.append(
        f"| all | {n} | {total['same_status'] / n:.1%} | "
        f"{total['same_captured_status'] / n:.1%} | {total['same_verdict'] / n:.1%} |"
    )

    by_category: Counter[str] = Counter()
    table = [
        "| path | Kornia's case | capmap's case | Kornia | capmap | why | evidence |",
        "|---|---|---|---|---|---|---|",
    ]
    for key in sorted(set(open_cells) | set(explained)):
        row = explained.get(key)
        entry = open_cells.get(key)
        if row is None:
            category, evidence = "unexplained", "not investigated yet"
            kornia_case = entry.get("old_case", entry["case"])
            statuses = (entry["old_status"], entry["new_status"])
        elif (
            entry
            and row["category"] != "capmap-flaw"
            and entry["new_status"] != row["capmap_status"].split(":")[0]
        ):
            # Written for another capmap status: the evidence no longer describes this cell.
            category = "unexplained"
            evidence = f"explained when capmap said {row['capmap_status']}; now {entry['new_status']}"
            kornia_case = row["kornia_case"]
            statuses = (entry["old_status"], entry["new_status"])
        else:
            category, evidence, kornia_case = row["category"], row["evidence"], row["kornia_case"]
            now = entry["new_status"] if entry else None
            if category == "capmap-flaw":
                evidence = f"was {row['capmap_status']}, fixed: {evidence}"
                if now == "constant":
                    category = "vocabulary"  # what is left once the flaw is gone
            elif entry is None:
                category = "resolved"
            statuses = (row["kornia_status"], now or f"agrees (was {row['capmap_status']})")
        by_category[category] += 1
        cells = [
            key[0],
            f"`{kornia_case}`",
            f"`{key[1]}`",
            statuses[0],
            statuses[1],
            category,
            evidence.replace("|", "\\|"),
        ]
        table.append("| " + " | ".join(cells) + " |")

    out += ["", *same_call_table(agreement, open_cells, explained)]
    out += ["", "| why they differ | cells | meaning |", "|---|---:|---|"]
    for category, count in by_category.most_common():
        out.append(f"| {category} | {count} | {CATEGORIES.get(category, '')} |")
    out += ["", *table]
    sys.stdout.write("\n".join(out) + "\n")
    return 1 if by_category["unexplained"] else 0


if __name__ == "__main__":
    sys.exit(main())

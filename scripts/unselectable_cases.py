"""Counts the cases of a snapshot that no change of the surveyed library can select.

    python scripts/unselectable_cases.py SNAPSHOT [--list] [--check]

`capmap run --changed FILE` selects a case when one of its recorded `files` is a changed file.
A case that is not skipped and whose `files` hold no file of the surveyed library (the header's
`library.name`: a path `NAME/...`, or the single file `NAME.py`) runs again only when its
registry file changes or every case runs: a library change never reaches it. Prints
`unselectable: N of M cases` (M: the cases that are not skipped), the names with `--list`;
`--check` exits 1 when N > 0.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def library_file(path: str, library: str) -> bool:
    return path.startswith(library + "/") or path == library + ".py"


def unselectable(snapshot: dict[str, Any]) -> tuple[list[str], int]:
    """(names of the unselectable cases, number of cases that are not skipped)."""
    library = str(snapshot.get("header", {}).get("library", {}).get("name", ""))
    probed = [c for c in snapshot.get("cases", []) if not c.get("skip")]
    names = [c["name"] for c in probed if not any(library_file(f, library) for f in (c.get("files") or {}))]
    return names, len(probed)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("snapshot", type=Path)
    parser.add_argument("--list", action="store_true", help="print the unselectable cases' names")
    parser.add_argument("--check", action="store_true", help="exit 1 when any case is unselectable")
    args = parser.parse_args(argv)
    names, probed = unselectable(json.loads(args.snapshot.read_text()))
    print(f"unselectable: {len(names)} of {probed} cases")
    if args.list:
        for name in names:
            print(f"  {name}")
    return 1 if args.check and names else 0


if __name__ == "__main__":
    sys.exit(main())

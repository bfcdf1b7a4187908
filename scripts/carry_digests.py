"""Gives a published snapshot the digests a registry has now, keeping every cell whose inputs are
the same bytes, and takes the cases whose inputs changed from a snapshot that measured them again.

    PYTHONPATH=python python scripts/carry_digests.py surveys/kornia/snapshot.json \
        [--registry capmap.registries.kornia] [--measured remeasured/snapshot.json] \
        [--machine-as-here] [--write]

For surveys published while a digest read a tensor's bytes: run it on a machine of the kind the
snapshot was measured on (its header's `cpu`), as a worker does (one thread). A case keeps its
cells when the digest of its values' bytes (`registry_digests.py --bytes`) is the snapshot's
`inputs`, and gets its digest of now (how each tensor was made); a case whose bytes differ is
listed, and must be in `--measured` (a merged snapshot of a run of just those cases under the
same versions and settings), whose entry replaces it. A snapshot without `inputs` (published
before digests) keeps every case, and says so. `--machine-as-here` records this machine in a
header that has no `machine` (its `cpu` must be this machine's). Without `--write`, only says
what it would do; exits 1 when a changed case has no measured entry.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

os.environ.update(OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")  # as a worker imports the registry


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("snapshot", type=Path)
    parser.add_argument("--registry", default="capmap.registries.kornia")
    parser.add_argument("--measured", type=Path, help="a snapshot of the changed cases, measured again")
    parser.add_argument("--machine-as-here", action="store_true", help="record this machine in the header")
    parser.add_argument("--write", action="store_true", help="write the snapshot back")
    args = parser.parse_args()

    import torch
    from capmap import environment, registry
    from capmap.case_digest import case_digests

    torch.set_num_threads(1)
    snapshot = json.loads(args.snapshot.read_text())
    reg = registry.load([args.registry])
    library = reg.library.get("name")
    by_recipe = case_digests(reg.cases, library)
    by_bytes = case_digests(reg.cases, library, by_bytes=True)
    measured: dict[str, Any] = {}
    if args.measured:
        other = json.loads(args.measured.read_text())
        for key in ("versions", "settings"):
            if other["header"].get(key) != snapshot["header"].get(key):
                print(f"carry_digests: {args.measured}: other {key} than {args.snapshot}", file=sys.stderr)
                return 2
        measured = {c["name"]: c for c in other["cases"]}

    kept = undigested = 0
    changed: list[str] = []
    cases = []
    for case in snapshot["cases"]:
        name = case["name"]
        if name not in by_recipe:
            print(f"carry_digests: {name}: not in the registry", file=sys.stderr)
            return 2
        if "inputs" in case and case["inputs"] != by_bytes[name]:
            changed.append(name)
            if name in measured:
                cases.append(measured[name])
            continue
        undigested += "inputs" not in case
        kept += 1
        cases.append({**case, "inputs": by_recipe[name]})
    missing = [n for n in changed if n not in measured]
    for name in changed:
        print(f"{'measured' if name in measured else 'NOT MEASURED'}\t{name}")
    print(
        f"{kept} cases keep their cells ({undigested} had no digest), {len(changed)} have other "
        f"inputs: {len(changed) - len(missing)} taken from --measured, {len(missing)} missing"
    )
    if missing:
        return 1
    snapshot["cases"] = cases
    header = snapshot["header"]
    if args.machine_as_here and "machine" not in header:
        here = environment.machine()
        if here["cpu"] != header.get("cpu"):
            print(
                f"carry_digests: measured on {header.get('cpu')!r}, this is {here['cpu']!r}", file=sys.stderr
            )
            return 2
        header["machine"] = here
    if args.write:
        args.snapshot.write_text(json.dumps(snapshot, indent=2, sort_keys=True, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

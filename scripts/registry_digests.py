"""Each case's input digest, for checking that a registry edit changes only what it means to.

    PYTHONPATH=python python scripts/registry_digests.py [REGISTRY ...] --out before.json
    # ... move cases, rename inputs, re-seed a section ...
    PYTHONPATH=python python scripts/registry_digests.py [REGISTRY ...] --against before.json

The digest is what `capmap run` stores as each case's `inputs` (its target with its weights,
method, inputs and keyword arguments); a tensor made at import is read by how it was made, so the
digest is the same on any CPU, BLAS path and thread count (`capmap.tensor_recipes`). `--bytes`
reads every tensor by its bytes instead: the same registry gives the same bytes on another machine
when the values a case computes on do not depend on it. `--against` prints the cases whose digest changed, and
those added or removed, one per line, then a count; it exits 1 when any changed, so a layout
change that should move nothing can be checked before the surveys are carried over. Without
REGISTRY, the bundled Kornia registry.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from capmap import registry
from capmap.case_digest import case_digests


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("registries", nargs="*", help="registry files, folders or modules")
    parser.add_argument("--out", type=Path, help="write {case: digest} here")
    parser.add_argument("--against", type=Path, help="compare with an earlier --out file")
    parser.add_argument(
        "--bytes", action="store_true", help="digest tensors by their bytes, not their recipes"
    )
    parser.add_argument("--bytes-out", type=Path, help="also write {case: digest of its tensors' bytes} here")
    args = parser.parse_args()
    started = time.perf_counter()
    try:
        reg = registry.load(args.registries)
    except registry.RegistryError as exc:
        print(f"registry_digests: {exc}", file=sys.stderr)
        return 2
    loaded = time.perf_counter()
    digests = case_digests(reg.cases, reg.library.get("name"), by_bytes=args.bytes)
    done = time.perf_counter()
    print(
        f"{len(digests)} cases: registry import {loaded - started:.1f} s, digests {done - loaded:.2f} s",
        file=sys.stderr,
    )
    if args.out:
        args.out.write_text(json.dumps(digests, indent=0, sort_keys=True) + "\n")
    if args.bytes_out:
        by_bytes = case_digests(reg.cases, reg.library.get("name"), by_bytes=True)
        args.bytes_out.write_text(json.dumps(by_bytes, indent=0, sort_keys=True) + "\n")
    if not args.against:
        return 0
    try:
        before = json.loads(args.against.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        print(f"registry_digests: {args.against}: {exc}", file=sys.stderr)
        return 2
    changed = sorted(n for n in digests if n in before and before[n] != digests[n])
    added = sorted(set(digests) - set(before))
    removed = sorted(set(before) - set(digests))
    for label, names in (("changed", changed), ("added", added), ("removed", removed)):
        for name in names:
            print(f"{label}\t{name}")
    print(f"{len(changed)} changed, {len(added)} added, {len(removed)} removed of {len(digests)} cases")
    return 1 if changed else 0


if __name__ == "__main__":
    sys.exit(main())

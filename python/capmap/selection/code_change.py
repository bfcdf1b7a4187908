"""`python -m capmap.selection.code_change REV FILE...`: which of the files a git diff lists changed only
their docstrings, comments or layout since REV, so `capmap run --changed-since REV` runs no case
for them. Prints the JSON list of those files (as given); exit 2 when git cannot be asked.

A file counts as changed in code when it is not Python that parses at both ends, is new, or is
gone: only an edit that leaves the syntax tree without docstrings the same is dropped.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from capmap.tracing.file_trace import source_code_hash


def git_top() -> str | None:
    done = subprocess.run(
        ["git", "rev-parse", "--show-toplevel"], capture_output=True, text=True, check=False
    )
    return done.stdout.strip() if done.returncode == 0 else None


def source_at(top: str, rev: str, path: str) -> bytes | None:
    """The file's bytes at `rev`; None when it did not exist there."""
    relative = os.path.relpath(os.path.abspath(path), top).replace(os.sep, "/")
    done = subprocess.run(["git", "-C", top, "show", f"{rev}:{relative}"], capture_output=True, check=False)
    return done.stdout if done.returncode == 0 else None


def source_now(path: str) -> bytes | None:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return None


def same_code(before: bytes | None, after: bytes | None) -> bool:
    if before is None or after is None:
        return False
    old, new = source_code_hash(before), source_code_hash(after)
    return old is not None and old == new


def unchanged_code(top: str, rev: str, paths: list[str]) -> list[str]:
    """The `paths` whose code at `rev` and now is the same."""
    return [p for p in paths if p.endswith(".py") and same_code(source_at(top, rev, p), source_now(p))]


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args:
        print("usage: python -m capmap.selection.code_change REV [FILE...]", file=sys.stderr)
        return 2
    top = git_top()
    if top is None:
        print("capmap.selection.code_change: the current folder is not in a git checkout", file=sys.stderr)
        return 2
    print(json.dumps(unchanged_code(top, args[0], args[1:])))
    return 0


if __name__ == "__main__":
    sys.exit(main())

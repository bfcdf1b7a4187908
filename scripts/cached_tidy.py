"""Runs clang-tidy over files of a build's compile_commands.json, skipping those whose result
is already known.

    python scripts/cached_tidy.py BUILD_DIR FILE... [--jobs N] [--cache DIR]

clang-tidy's verdict on a file is a function of the translation unit it parses, its checks
(.clang-tidy) and its own version. A file is preprocessed with its own compile command (`-E`:
every header it reaches, inlined); the digest of that text, the checks and the version names a
stamp in the cache folder, written only when clang-tidy found nothing. A file whose stamp exists
passed before with exactly these inputs and is not checked again; any other is. A finding is
printed as clang-tidy prints it and makes the exit status 1, as running clang-tidy directly would.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shlex
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def compile_commands(build: Path) -> dict[str, dict[str, str]]:
    entries = json.loads((build / "compile_commands.json").read_text())
    return {str(Path(e["directory"], e["file"]).resolve()): e for e in entries}


def preprocess_argv(entry: dict[str, str]) -> list[str]:
    """The file's compile command, turned into one that writes the preprocessed source."""
    argv = list(entry["arguments"]) if "arguments" in entry else shlex.split(entry["command"])
    out: list[str] = []
    skip = False
    for arg in argv:
        if skip:
            skip = False
            continue
        if arg in ("-o", "-MF", "-MT", "-MQ"):
            skip = True
            continue
        if arg in ("-c", "-MD", "-MMD"):
            continue
        out.append(arg)
    # Line markers carry absolute paths: a clone elsewhere must reach the same digest.
    return [*out, "-E", "-P"]


def digest(entry: dict[str, str], salt: bytes) -> str:
    done = subprocess.run(preprocess_argv(entry), cwd=entry["directory"], capture_output=True, check=False)
    if done.returncode != 0:
        # Cannot preprocess: no stamp can vouch for it, so clang-tidy runs and says why.
        return ""
    return hashlib.sha256(salt + done.stdout).hexdigest()


def tidy(build: Path, file: str) -> tuple[int, str]:
    done = subprocess.run(
        ["clang-tidy", "-p", str(build), "--quiet", file], capture_output=True, text=True, check=False
    )
    # "N warnings generated" counts what it left out (library headers, other checks).
    errors = "".join(line + "\n" for line in done.stderr.splitlines() if not line.endswith("generated."))
    return done.returncode, done.stdout + errors


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build", type=Path, help="the build folder holding compile_commands.json")
    parser.add_argument("files", nargs="+", help="the sources to check")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument(
        "--cache",
        type=Path,
        default=Path.home() / ".cache" / "capmap" / "tidy",
        help="where the stamps of passed files are kept (default ~/.cache/capmap/tidy)",
    )
    args = parser.parse_args(argv)
    commands = compile_commands(args.build)
    version = subprocess.run(["clang-tidy", "--version"], capture_output=True, check=True).stdout
    salt = version + (REPO / ".clang-tidy").read_bytes()
    args.cache.mkdir(parents=True, exist_ok=True)

    def check(file: str) -> tuple[str, int, str, bool]:
        entry = commands.get(str(Path(file).resolve()))
        if entry is None:
            return file, 1, f"{file}: not in {args.build}/compile_commands.json\n", False
        key = digest(entry, salt)
        stamp = args.cache / key
        if key and stamp.exists():
            return file, 0, "", True
        code, output = tidy(args.build, file)
        if code == 0 and key:
            stamp.touch()
        return file, code, output, False

    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = list(pool.map(check, args.files))
    failed = 0
    for _file, code, output, _known in results:
        sys.stdout.write(output)
        failed += code != 0
    known = sum(r[3] for r in results)
    print(f"clang-tidy: {len(results)} files, {known} passed before with the same inputs, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

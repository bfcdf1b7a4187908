"""Mutation fuzzing of the `capmap` commands themselves, for a machine without clang: each input
is a seed from tests/fuzz/corpus/TARGET with one structural mutation (a value replaced by null, a
number beyond a double, markup, a list, an object, deep nesting; a key dropped; bytes flipped,
inserted or cut), written to a file and read by the command that reads such files. A finding is
exit 3 (internal error), a signal, an unknown exit code, or a refusal (exit 2) that is not one line
naming the file. Used by bench/fuzz_bench.py --cli."""

from __future__ import annotations

import hashlib
import json
import random
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HUGE = "__capmap_huge_number__"
DEEP = "__capmap_deep_nesting__"
REPLACEMENTS: list[Any] = [
    None, HUGE, "", "<script>alert(1)</script>", "javascript:alert(1)", [], {}, 0, -1, 2**64, 1.5,
    True, "x" * 5000, [None], {"": None}, "\u2028\ud7ff", "{path}{ref}{line}",
]  # fmt: skip


@dataclass
class CliFigures:
    executions: int = 0
    refusals: int = 0
    findings: list[str] | None = None


def _nodes(value: Any, path: tuple = ()) -> list[tuple]:
    found = [path]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _nodes(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _nodes(item, (*path, index))
    return found


def _replace(document: Any, path: tuple, new: Any) -> Any:
    if not path:
        return new
    parent = document
    for step in path[:-1]:
        parent = parent[step]
    parent[path[-1]] = new
    return document


def mutate_json(seed: bytes, rng: random.Random) -> bytes:
    try:
        document = json.loads(seed)
    except ValueError:
        return mutate_bytes(seed, rng)
    kind = rng.random()
    if kind < 0.15:
        return mutate_bytes(seed, rng)
    path = rng.choice(_nodes(document))
    if kind < 0.25 and path:
        parent = document
        for step in path[:-1]:
            parent = parent[step]
        del parent[path[-1]]
    elif kind < 0.3:
        document = _replace(document, path, DEEP)
    else:
        document = _replace(document, path, rng.choice(REPLACEMENTS))
    text = json.dumps(document)
    depth = rng.choice([10, 200, 5000])
    text = text.replace(json.dumps(DEEP), "[" * depth + "null" + "]" * depth)
    return text.replace(json.dumps(HUGE), rng.choice(["1e309", "-1e309", "1e99999"])).encode()


def mutate_bytes(seed: bytes, rng: random.Random) -> bytes:
    data = bytearray(seed)
    for _ in range(rng.randint(1, 8)):
        if not data:
            data += bytes([rng.randrange(256)])
            continue
        at = rng.randrange(len(data))
        action = rng.random()
        if action < 0.5:
            data[at] = rng.randrange(256)
        elif action < 0.75:
            data[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 16)))
        else:
            del data[at : at + rng.randint(1, 64)]
    return bytes(data)


def commands(target: str, file: Path, scratch: Path, rules_snapshot: Path) -> list[list[str]]:
    f = str(file)
    if target == "snapshot":
        return [
            ["diff", f, f],
            ["render", f, "--html", str(scratch / "p.html"), "--rst", str(scratch / "p.rst"),
             "--md", str(scratch / "s.md")],
            ["causes", f],
            ["report", f, "--junit", str(scratch / "j.xml")],
        ]  # fmt: skip
    if target == "kornia_file":
        return [["diff", f, f]]
    if target == "store":
        return [
            ["merge", "--store", f, "--out", str(scratch / "s.json"), "--force"],
            ["causes", "--store", f],
            # repro chooses the run in C++, then reads the store in Python (capmap.repro.cells).
            ["repro", "no_such_case", "--store", f],
        ]
    if target == "cause_rules":
        return [["causes", str(rules_snapshot), "--rules", f]]
    return []


def is_finding(result: subprocess.CompletedProcess[str], file: Path) -> bool:
    if result.returncode < 0 or result.returncode not in (0, 1, 2):
        return True
    if result.returncode == 2:
        lines = result.stderr.strip().splitlines()
        return len(lines) != 1 or file.name not in lines[0]
    return False


def fuzz_cli(
    binary: Path,
    target: str,
    seeds: list[Path],
    seconds: float,
    scratch: Path,
    rules_snapshot: Path,
    clock: Callable[[], float],
    nice: int = 0,
) -> CliFigures:
    rng = random.Random(target)
    figures = CliFigures(findings=[])
    work = scratch / "cli" / target
    findings = scratch / "findings" / target
    work.mkdir(parents=True, exist_ok=True)
    findings.mkdir(parents=True, exist_ok=True)
    suffix = ".db" if target == "store" else ".toml" if target == "cause_rules" else ".json"
    file = work / f"fuzz-input{suffix}"
    seed_bytes = [s.read_bytes() for s in seeds]
    mutate = mutate_bytes if target in ("store", "cause_rules") else mutate_json
    deadline = clock() + seconds
    while clock() < deadline and seed_bytes:
        data = mutate(rng.choice(seed_bytes), rng)
        for side in ("", "-wal", "-shm", "-journal", ".lock"):
            Path(str(file) + side).unlink(missing_ok=True)
        file.write_bytes(data)
        command = rng.choice(commands(target, file, work, rules_snapshot))
        prefix = ["nice", "-n", str(nice)] if nice else []
        result = subprocess.run(
            [*prefix, str(binary), *command], capture_output=True, text=True, errors="replace", timeout=120
        )
        figures.executions += 1
        figures.refusals += result.returncode == 2
        if is_finding(result, file):
            name = "crash-" + hashlib.sha1(data).hexdigest()
            (findings / name).write_bytes(data)
            (findings / (name + ".txt")).write_text(
                f"{command}\nexit {result.returncode}\n{result.stderr[-4000:]}"
            )
            figures.findings.append(name)
    return figures

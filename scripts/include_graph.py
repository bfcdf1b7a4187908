"""Checks that the engine's rooms (the folders of src/) and Python's (the packages of
python/capmap/) depend on each other only downwards.

    python scripts/include_graph.py [ROOT]

ROOT (default: the checkout this script lives in) holds src/ and, optionally, CMakeLists.txt.
Every `#include "room/name.h"` of src/*/*.{h,cc} and src/*.cc, and every
`target_link_libraries(capmap_ROOM ... capmap_OTHER ...)` of CMakeLists.txt, must point at a
room strictly below its own in ROOM_LEVELS (rooms on one level know nothing of each other).
An include must also be backed by the links: the including room's library reaches the included
room's library through its links. A library header in OWNED_HEADERS may be included only in its
room (only src/store/ speaks SQL). Prints one line per violation (an edge that points up or
sideways, an undeclared room, a missing link, a header outside its room, a cycle) and exits 1
when there is any, else 0.

Python's rooms are the packages of python/capmap/ in PYTHON_ROOM_LEVELS; its top-level modules
are the room `core`, but for the entry points in PYTHON_TOOLS (room `tools`, above all). Every
import of a capmap module, at the top of a file or inside a function, must point at a room
strictly below its own, as an include must.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

# Lowest first. A room may depend on the rooms of the levels before its own, never on its own
# level or a later one (docs/architecture.md, "Code map").
ROOM_LEVELS: tuple[tuple[str, ...], ...] = (
    ("common",),
    ("store",),
    ("selection",),
    ("snapshot",),
    ("run", "merge", "render"),
    ("diff",),
    ("history",),
    ("cli",),
)
# Files directly under src/ (main.cc): above every room.
TOP = "main"
# Library headers one room owns: every other room goes through that room's own types.
OWNED_HEADERS: dict[str, str] = {"sqlite3.h": "store"}

# Python's rooms, lowest first: the case API and shared helpers (`core`), the trace of library
# code, the capture paths and the registries, what uses the probes, the worker that runs them.
PYTHON_ROOM_LEVELS: tuple[tuple[str, ...], ...] = (
    ("core",),
    ("tracing",),
    ("probes", "registries", "coverage"),
    ("selection", "repro"),
    ("worker",),
    ("tools",),
)
# Top-level modules that are entry points of their own, not shared helpers.
PYTHON_TOOLS = frozenset({"make_env", "sphinx"})
PYTHON_PACKAGE = "capmap"

INCLUDE = re.compile(r'^\s*#\s*include\s+"([A-Za-z0-9_]+)/[^"]+"', re.MULTILINE)
SYSTEM_INCLUDE = re.compile(r"^\s*#\s*include\s+<([^>]+)>", re.MULTILINE)
LINK_CALL = re.compile(r"target_link_libraries\s*\(([^)]*)\)", re.DOTALL)
COMPONENT_CALL = re.compile(r"capmap_component\s*\(\s*([A-Za-z0-9_]+)")


@dataclass(frozen=True)
class Edge:
    source: str  # room that depends
    target: str  # room depended on
    where: str  # "src/merge/merge.cc:23" or "CMakeLists.txt:71"
    what: str  # "includes selection/shard.h" or "capmap_merge links capmap_store"


def room_rank() -> dict[str, int]:
    ranks = {room: level for level, rooms in enumerate(ROOM_LEVELS) for room in rooms}
    ranks[TOP] = len(ROOM_LEVELS)
    return ranks


def line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def source_files(src: Path) -> Iterable[tuple[str, Path]]:
    """(room, file) for every C++ file of src/: files directly under it belong to TOP."""
    for file in sorted(src.glob("*.cc")):
        yield TOP, file
    for file in sorted(src.glob("*/*")):
        if file.suffix in (".h", ".cc") and file.is_file():
            yield file.parent.name, file


def include_edges(root: Path) -> tuple[list[Edge], set[str]]:
    """The includes that cross rooms, and every room that holds a source file."""
    edges: list[Edge] = []
    rooms: set[str] = set()
    for room, file in source_files(root / "src"):
        rooms.add(room)
        text = file.read_text(encoding="utf-8", errors="replace")
        for match in INCLUDE.finditer(text):
            target = match.group(1)
            if target == room:
                continue
            header = match.group(0).split('"')[1]
            where = f"{file.relative_to(root).as_posix()}:{line_of(text, match.start(1))}"
            edges.append(Edge(room, target, where, f"includes {header}"))
    return edges, rooms


def owned_header_violations(root: Path) -> list[str]:
    problems = []
    for room, file in source_files(root / "src"):
        text = file.read_text(encoding="utf-8", errors="replace")
        for match in SYSTEM_INCLUDE.finditer(text):
            owner = OWNED_HEADERS.get(match.group(1))
            if owner is not None and owner != room:
                where = f"{file.relative_to(root).as_posix()}:{line_of(text, match.start(1))}"
                problems.append(f"{where}: includes <{match.group(1)}>: only {owner} may")
    return problems


def link_edges(cmake: Path, known: set[str]) -> tuple[list[Edge], set[str]]:
    """The links between room libraries, and the rooms CMakeLists.txt builds a library for."""
    text = cmake.read_text(encoding="utf-8")
    libraries = {match.group(1) for match in COMPONENT_CALL.finditer(text)}
    edges: list[Edge] = []
    for match in LINK_CALL.finditer(text):
        words = match.group(1).split()
        if not words or not words[0].startswith("capmap_"):
            continue
        source = words[0].removeprefix("capmap_")
        # Test binaries, fuzz targets and the executable are not rooms.
        if source not in libraries and source not in known:
            continue
        for word in words[1:]:
            if word.startswith("capmap_"):
                where = f"{cmake.name}:{line_of(text, match.start())}"
                what = f"capmap_{source} links {word}"
                edges.append(Edge(source, word.removeprefix("capmap_"), where, what))
    return edges, libraries


def ordering_violations(edges: Iterable[Edge], ranks: dict[str, int]) -> list[str]:
    problems = []
    for edge in edges:
        for room in (edge.source, edge.target):
            if room not in ranks:
                problems.append(f"{edge.where}: {edge.what}: room '{room}' is not in the declared order")
                break
        else:
            if ranks[edge.target] == ranks[edge.source]:
                problems.append(
                    f"{edge.where}: {edge.what}: {edge.source} and {edge.target} are on one level "
                    "and may not depend on each other"
                )
            elif ranks[edge.target] > ranks[edge.source]:
                problems.append(f"{edge.where}: {edge.what}: {edge.target} is above {edge.source}")
    return problems


def reachable(start: str, graph: dict[str, set[str]]) -> set[str]:
    seen: set[str] = set()
    todo = [start]
    while todo:
        for nxt in graph.get(todo.pop(), set()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one room (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, set())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def as_graph(edges: Iterable[Edge]) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for edge in edges:
        graph.setdefault(edge.source, set()).add(edge.target)
    return graph


def check(root: Path) -> list[str]:
    ranks = room_rank()
    includes, rooms = include_edges(root)
    undeclared = sorted(rooms - set(ranks))
    problems = [f"src/{room}/: room '{room}' is not in the declared order" for room in undeclared]
    problems += ordering_violations(includes, ranks)
    problems += owned_header_violations(root)
    cmake = root / "CMakeLists.txt"
    links: list[Edge] = []
    if cmake.is_file():
        links, libraries = link_edges(cmake, set(ranks))
        problems += ordering_violations(links, ranks)
        link_graph = as_graph(links)
        for edge in includes:
            # main.cc is built into the executable, which links capmap_cli.
            source = "cli" if edge.source == TOP else edge.source
            if edge.target in libraries and edge.target != source:
                if edge.target not in reachable(source, link_graph):
                    problems.append(
                        f"{edge.where}: {edge.what}: capmap_{source} does not link capmap_{edge.target}"
                    )
    for group in cycles(as_graph([*includes, *links])):
        problems.append(f"rooms in a dependency cycle: {', '.join(group)}")
    return problems


def python_room(package: Path, parts: tuple[str, ...]) -> str:
    """The room of capmap.PARTS: its package's folder, or core/tools for a top-level module."""
    if not parts:
        return "core"
    if (package / parts[0]).is_dir():
        return parts[0]
    return "tools" if parts[0] in PYTHON_TOOLS else "core"


def is_module(package: Path, name: str) -> bool:
    return (package / name).is_dir() or (package / f"{name}.py").is_file()


def imported_modules(tree: ast.AST, own: tuple[str, ...], is_package: bool) -> Iterable[tuple[int, str]]:
    """(line, dotted name) of the module each import statement takes names from, relative ones
    resolved; `from capmap import probes` names capmap.probes."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = list(own if is_package else own[:-1])
                base = base[: len(base) - (node.level - 1)]
                module = ".".join([*base, *([node.module] if node.module else [])])
            else:
                module = node.module or ""
            if module == PYTHON_PACKAGE:  # the names may be modules of rooms
                for alias in node.names:
                    yield node.lineno, f"{module}.{alias.name}"
            else:
                yield node.lineno, module


def python_edges(root: Path) -> tuple[list[Edge], set[str]]:
    """The imports between Python's rooms, and every room that holds a module."""
    package = root / "python" / PYTHON_PACKAGE
    edges: list[Edge] = []
    rooms: set[str] = set()
    for file in sorted(package.rglob("*.py")):
        parts = file.relative_to(package).with_suffix("").parts
        is_package = parts[-1] == "__init__"
        if is_package:
            parts = parts[:-1]
        room = python_room(package, parts)
        rooms.add(room)
        own = (PYTHON_PACKAGE, *parts)
        text = file.read_text(encoding="utf-8", errors="replace")
        where_file = file.relative_to(root).as_posix()
        seen: set[tuple[int, str]] = set()
        for line, name in imported_modules(ast.parse(text, filename=where_file), own, is_package):
            words = tuple(name.split("."))
            if words[0] != PYTHON_PACKAGE:
                continue
            inner = words[1:]
            # `from capmap import case`: a name of the package, not a module of a room.
            if len(inner) == 1 and not is_module(package, inner[0]):
                inner = ()
            target = python_room(package, inner)
            module = ".".join(words) if inner else PYTHON_PACKAGE
            if target == room or (line, module) in seen:
                continue
            seen.add((line, module))
            edges.append(Edge(room, target, f"{where_file}:{line}", f"imports {module}"))
    return edges, rooms


def python_check(root: Path) -> list[str]:
    ranks = {room: level for level, rooms in enumerate(PYTHON_ROOM_LEVELS) for room in rooms}
    edges, rooms = python_edges(root)
    problems = [
        f"python/{PYTHON_PACKAGE}/{room}/: room '{room}' is not in the declared order"
        for room in sorted(rooms - set(ranks))
    ]
    problems += ordering_violations([e for e in edges if e.source in ranks], ranks)
    for group in cycles(as_graph(edges)):
        problems.append(f"Python rooms in a dependency cycle: {', '.join(group)}")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", nargs="?", type=Path, default=Path(__file__).resolve().parent.parent)
    args = parser.parse_args(argv)
    if not (args.root / "src").is_dir():
        print(f"{args.root}: no src/ folder", file=sys.stderr)
        return 2
    problems = check(args.root)
    if (args.root / "python" / PYTHON_PACKAGE).is_dir():
        problems += python_check(args.root)
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

"""The Kornia registry is laid out by Kornia's public packages: each package's cases (functions,
classes and their methods) in one module, and every input from the one vocabulary in _inputs."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import capmap.registries.kornia as kornia_registry
from capmap import registry

FOLDER = Path(kornia_registry.__file__).parent
# kornia.geometry is large: its subpackages are spread over three modules by topic.
GEOMETRY = {
    "transform": "geometry_transform",
    **dict.fromkeys(
        ("bbox", "boxes", "calibration", "camera", "depth", "epipolar", "homography", "keypoints")
        + ("ransac", "solvers", "subpix"),
        "geometry_camera",
    ),
    **dict.fromkeys(
        ("conversions", "grid", "liegroup", "linalg", "line", "plane", "pose", "quaternion", "vector"),
        "geometry",
    ),
}


def expected_module(group: str) -> str:
    package, _, rest = group.partition(".")
    if package == "geometry":
        return GEOMETRY[rest.split(".", 1)[0]]
    return package


def test_each_package_s_cases_live_in_its_module() -> None:
    reg = registry.load(["capmap.registries.kornia"])
    misplaced = []
    modules_of: dict[str, set[str]] = defaultdict(set)
    for c in reg.cases:
        module = Path(c.where.rsplit(":", 1)[0]).stem
        modules_of[c.group.split(".", 1)[0]].add(module)
        if module != expected_module(c.group):
            misplaced.append(f"{c.name} ({c.group}) in {module}.py")
    assert not misplaced, misplaced
    assert all(len(found) == 1 for package, found in modules_of.items() if package != "geometry")


def test_every_module_is_listed_and_inputs_come_from_one_vocabulary() -> None:
    modules = {p.stem for p in FOLDER.glob("*.py") if not p.stem.startswith("_")}
    assert set(kornia_registry.REGISTRY_MODULES) == modules
    inputs = {p.stem for p in FOLDER.glob("_inputs*.py")}
    assert inputs == {"_inputs"}
    vocabulary = {
        node.name
        for node in ast.parse((FOLDER / "_inputs.py").read_text()).body
        if isinstance(node, ast.FunctionDef)
    }
    for path in FOLDER.glob("*.py"):
        if path.stem == "_inputs":
            continue
        tree = ast.parse(path.read_text())
        defined = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
        assert not defined & vocabulary, f"{path.name} redefines {sorted(defined & vocabulary)}"
        imported = {
            node.module
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module and "_inputs" in node.module
        }
        assert imported <= {"_inputs", "capmap.registries.kornia"}, (path.name, imported)

"""The Kornia registry, augmentation and geometry areas: loads, names, refs, inputs, eager runs."""

from __future__ import annotations

import collections
import importlib
import inspect
from pathlib import Path
from typing import Any

import kornia
import pytest
import torch
from capmap import coverage, registry
from capmap.cases import Case
from capmap.registries import kornia as kornia_registry
from capmap_testing import records

AREA_MODULES = ["augmentation", "geometry", "geometry_transform", "geometry_camera"]


@pytest.fixture(scope="module")
def area() -> registry.Registry:
    return registry.load([f"capmap.registries.kornia.{m}" for m in AREA_MODULES])


def _public_names() -> dict[int, set[str]]:
    """id(object) -> every dotted public name under which kornia exports it."""
    found: dict[int, set[str]] = collections.defaultdict(set)
    seen: set[str] = set()

    def walk(module: Any) -> None:
        if module.__name__ in seen:
            return
        seen.add(module.__name__)
        names = getattr(module, "__all__", None)
        if names is None:
            names = [n for n in dir(module) if not n.startswith("_")]
        for name in names:
            obj = getattr(module, name, None)
            if obj is None:
                continue
            if inspect.ismodule(obj):
                parts = obj.__name__.split(".")
                if parts[0] == "kornia" and not any(p.startswith("_") for p in parts):
                    walk(obj)
            elif callable(obj):
                found[id(obj)].add(f"{module.__name__}.{name}")

    walk(kornia)
    return found


def _target_object(c: Case) -> Any:
    t = c.target
    return t if inspect.isfunction(t) or inspect.isclass(t) else type(t)


def test_area_modules_are_listed_in_the_package() -> None:
    for module in AREA_MODULES:
        assert module in kornia_registry.REGISTRY_MODULES


def test_area_loads_with_unique_names_and_matching_groups(area: registry.Registry) -> None:
    names = [c.name for c in area.cases]
    duplicates = [n for n, k in collections.Counter(names).items() if k > 1]
    assert not duplicates
    assert len(area.cases) >= 700
    for c in area.cases:
        expected = "augmentation" if "augmentation.py" in c.where else "geometry"
        assert c.package == expected, f"{c.where}: {c.name} is in group {c.group}"


def test_every_ref_is_a_public_kornia_name(area: registry.Registry) -> None:
    public = _public_names()
    # A function of a public module that no `__all__` lists (one Kornia's own survey probes):
    # `capmap coverage` counts it apart, as unlisted, and so does this test.
    unlisted = {entry["case"] for entry in coverage.measure(area).unlisted_cases}
    problems = []
    for c in area.cases:
        if c.covers:
            # A lambda case names what it exercises: public callables or `Class.member`s.
            for name in c.covers:
                owner, _, member = name.rpartition(".")
                resolved = coverage.resolve(name)
                if resolved is None:
                    problems.append(f"{c.name}: covers {name}, which does not resolve")
                elif not public.get(id(resolved)) and not public.get(id(coverage.resolve(owner))):
                    problems.append(f"{c.name}: covers {name}, which kornia does not export")
            if c.ref != c.covers[0]:
                problems.append(f"{c.name}: ref {c.ref} is not the first name it covers")
            continue
        obj = _target_object(c)
        module_name, _, qual = c.ref.rpartition(".")
        resolved = getattr(importlib.import_module(module_name), qual, None)
        if resolved is not obj:
            problems.append(f"{c.name}: ref {c.ref} does not resolve to the target")
            continue
        exported = public.get(id(obj), set())
        if not exported and c.name in unlisted:
            continue
        if not exported:
            problems.append(f"{c.name}: {c.ref} is not exported by any public kornia module")
            continue
        # The operator is the public name, optionally qualified by its package, plus `.method`.
        op = c.operator.removeprefix("augmentation.").removeprefix("geometry.")
        head = op.split(".", 1)[0]
        if head not in {name.rpartition(".")[2] for name in exported}:
            problems.append(f"{c.name}: operator {head!r} is not a public name of {c.ref}")
        if c.method is not None and not op.endswith("." + c.method):
            problems.append(f"{c.name}: probes method {c.method!r} but is not named Class.{c.method}")
    assert not problems, "\n".join(problems)


def test_where_points_at_the_registering_line(area: registry.Registry) -> None:
    """Cases built by helpers still name the registry line a reader should open."""
    lines: dict[str, list[str]] = {}
    problems = []
    for c in area.cases:
        path, _, line = c.where.rpartition(":")
        if path not in lines:
            lines[path] = Path(path).read_text().splitlines()
        window = "\n".join(lines[path][int(line) - 1 : int(line) + 2])
        op = c.operator.removesuffix(f".{c.method}") if c.method else c.operator
        if f'"{op}' not in window:
            problems.append(f"{c.name}: {c.where} does not register it")
    assert not problems, "\n".join(problems[:20])


def test_each_operator_starts_with_its_default_configuration(area: registry.Registry) -> None:
    first: dict[str, Case] = {}
    for c in area.cases:
        first.setdefault(c.operator, c)
    late = [c.name for c in first.values() if c.variant]
    assert not late, f"operators whose first case is a variant: {late}"


def test_inputs_are_small_cpu_float32(area: registry.Registry) -> None:
    problems = []
    for c in area.cases:
        for i, x in enumerate(_tensors(c.inputs)):
            if x.device.type != "cpu":
                problems.append(f"{c.name}: input {i} on {x.device}")
            if x.is_floating_point() and x.dtype != torch.float32:
                problems.append(f"{c.name}: input {i} is {x.dtype}")
            if x.numel() > 20_000:
                problems.append(f"{c.name}: input {i} has {x.numel()} elements")
            if x.is_floating_point() and not torch.isfinite(x).all():
                problems.append(f"{c.name}: input {i} is not finite")
    assert not problems, "\n".join(problems)


def _tensors(value: Any) -> list[torch.Tensor]:
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in _tensors(v)]
    return []


def test_augmentations_come_deterministic_and_random(area: registry.Registry) -> None:
    by_name = area.by_name()
    for c in area.cases:
        if c.package != "augmentation" or c.variant or c.skip or c.method:
            continue
        if "Dispather" in c.operator:
            continue  # no params= argument: only the sampling form exists
        assert "params" in c.kwargs and c.check, f"{c.name}: the default case must take sampled params"
        randomised = by_name.get(f"{c.operator}[random]")
        assert randomised is not None, f"{c.name}: no {c.operator}[random]"
        assert "params" not in randomised.kwargs and not randomised.check


def test_quick_tier_share(area: registry.Registry) -> None:
    quick = [c for c in area.cases if "quick" in c.tags]
    assert 15 <= len(quick) <= 25
    assert {c.package for c in quick} == {"augmentation", "geometry"}
    assert all(c.skip is None for c in quick)


def test_eager_pass(area: registry.Registry, kornia_eager_store: Path) -> None:
    """Every case of the area ran eagerly through the real probe (the whole registry's eager
    pass, shared by the tests that read it); a tensor came back unless the case's note says it
    cannot."""
    found = records(kornia_eager_store)
    problems = []
    for c in area.cases:
        record = found.get((c.name, "eager"))
        if record is None:
            problems.append(f"{c.name}: no eager record")
            continue
        status = record["status"]
        if c.skip is not None:
            if status != "skipped":
                problems.append(f"{c.name}: skipped case recorded as {status}")
        elif status == "no-tensor-output":
            if "no tensor output" not in c.note:
                problems.append(f"{c.name}: no tensor output, and the note does not say why")
        elif status != "ok":
            problems.append(f"{c.name}: {status}: {record.get('message', '')[:200]}")
    assert not problems, "\n".join(problems)

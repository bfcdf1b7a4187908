"""The Kornia registry, areas other than augmentation and geometry: loads, names, refs, inputs, eager."""

from __future__ import annotations

import importlib.util
import sys
import warnings
from pathlib import Path

import pytest
import torch
from capmap import coverage, registry
from capmap.registries import kornia as kornia_registry
from capmap_testing import records

AREA_MODULES = [
    "feature",
    "filters",
    "color",
    "enhance",
    "morphology",
    "contrib",
    "losses",
    "metrics",
    "utils",
    "sensors",
    "nerf",
    "tracking",
    "image",
    "models",
    "core",
    "exclusions",
]


@pytest.fixture(scope="module")
def area() -> registry.Registry:
    # Registry modules register their cases when imported; another test of this session may
    # have imported them already, so import them afresh.
    for name in [n for n in sys.modules if n.startswith("capmap.registries.kornia.")]:
        del sys.modules[name]
    return registry.load([f"capmap.registries.kornia.{m}" for m in AREA_MODULES])


def test_area_modules_are_listed_in_the_package() -> None:
    missing = [m for m in AREA_MODULES if m not in kornia_registry.REGISTRY_MODULES]
    assert missing == []


def test_area_is_large_and_names_are_unique(area: registry.Registry) -> None:
    names = [c.name for c in area.cases]
    assert len(names) == len(set(names))
    assert len(names) >= 550


def test_every_case_targets_a_public_kornia_callable(area: registry.Registry) -> None:
    report = coverage.measure(area)
    assert report.stray_cases == []


def test_every_exclusion_names_something_public(area: registry.Registry) -> None:
    callables = coverage.public_callables("kornia")
    # Names and methods (`Class.member`); an exclusion may also be a pattern over them.
    public = {n for pc in callables for n in pc.names}
    public |= {n for m in coverage.public_methods("kornia", callables) for n in m.names}
    for e in area.excludes:
        assert e.reason.strip(), e.name
        assert any(coverage.excluded_by(n, e.name) for n in public), f"{e.where}: {e.name}"


def test_default_configuration_comes_before_variants(area: registry.Registry) -> None:
    first_seen: dict[str, str] = {}
    for c in area.cases:
        first_seen.setdefault(c.operator, c.name)
    late = [name for op, name in first_seen.items() if name != op]
    assert late == []


def test_groups_start_with_a_kornia_subpackage(area: registry.Registry) -> None:
    packages = {c.package for c in area.cases}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        unknown = sorted(p for p in packages if importlib.util.find_spec(f"kornia.{p}") is None)
    assert unknown == []


def test_float_inputs_are_cpu_float32(area: registry.Registry) -> None:
    def tensors(value: object) -> list[torch.Tensor]:
        if isinstance(value, torch.Tensor):
            return [value]
        if isinstance(value, (list, tuple)):
            return [t for v in value for t in tensors(v)]
        if isinstance(value, dict):
            return [t for v in value.values() for t in tensors(v)]
        return []

    bad = [
        c.name
        for c in area.cases
        for t in tensors(c.inputs)
        if t.device.type != "cpu" or (t.is_floating_point() and t.dtype != torch.float32)
    ]
    assert bad == []


def test_quick_tier_share(area: registry.Registry) -> None:
    quick = [c for c in area.cases if "quick" in c.tags]
    assert 15 <= len(quick) <= 25
    assert all(c.skip is None for c in quick)
    assert len({c.package for c in quick}) >= 8


def test_skipped_cases_say_why(area: registry.Registry) -> None:
    for c in area.cases:
        assert c.skip is None or len(c.skip) > 10, c.name


def test_eager_run_of_every_case(area: registry.Registry, kornia_eager_store: Path) -> None:
    """The real eager probe, flattening included (what every capture path is compared with), on
    every case of the area: the whole registry's eager pass, shared by the tests that read it."""
    found = records(kornia_eager_store)
    failures = []
    for c in area.cases:
        if c.skip:
            continue
        record = found.get((c.name, "eager"))
        if record is None:
            failures.append(f"{c.where}: {c.name}: no eager record")
        elif record["status"] == "no-tensor-output":
            # A case probes something unless the public API returns no tensor by design.
            if "no tensor output" not in c.note:
                failures.append(f"{c.where}: {c.name}: no tensor output, and the note does not say why")
        elif record["status"] != "ok":
            failures.append(f"{c.where}: {c.name}: {record.get('error_type')}: {record.get('message', '')}")
    assert failures == []

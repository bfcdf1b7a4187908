"""The bundled torchmetrics registry: loads, names public paths, covers torchmetrics.functional,
and a few of its cases run through real probes (a smoke test; the full survey is a command)."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("torchmetrics")

from capmap import coverage, registry  # noqa: E402
from capmap.probes.task import run_task  # noqa: E402

pytestmark = pytest.mark.filterwarnings(
    "ignore::FutureWarning", "ignore::DeprecationWarning", "ignore::UserWarning"
)


@pytest.fixture(scope="module")
def reg() -> registry.Registry:
    return registry.load(["capmap.registries.torchmetrics"])


def test_registry_names_its_library_and_public_paths(reg: registry.Registry) -> None:
    assert reg.library["name"] == "torchmetrics"
    assert "/blob/v{revision}/" in reg.library["source_url"]
    cases = reg.by_name()
    assert len(cases) >= 300
    # Refs name the defining module; the page derives the public path users import.
    assert cases["binary_accuracy"].ref == "torchmetrics.functional.classification.accuracy.binary_accuracy"
    stateful = cases["MeanSquaredError[update+compute]"]
    assert stateful.covers[1:] == (f"{stateful.ref}.update", f"{stateful.ref}.compute")
    assert 8 <= sum("quick" in c.tags for c in reg.cases) <= 20


def test_functional_api_is_covered(reg: registry.Registry) -> None:
    report = coverage.measure(reg)
    functional = report.packages()["torchmetrics.functional"]
    assert functional["total"] > 150  # subpackages' __all__ are followed (classification alone: 78)
    assert functional["covered"] / functional["total"] >= 0.9
    # Deprecated top-level wrappers are left out, not listed as missing.
    assert "torchmetrics.functional.image_gradients" in report.deprecated
    assert not any(
        name.endswith((".plot", ".reset")) for names in report.methods_missing().values() for name in names
    )


def _records(case: Any, paths: list[str]) -> dict[str, dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    run_task(case, paths, {}, messages.append)
    return {m["path"]: m["record"] for m in messages if m["type"] == "record"}


def test_smoke_cases_run_through_real_probes(reg: registry.Registry) -> None:
    cases = reg.by_name()
    functional = _records(cases["mean_squared_error"], ["eager", "export", "onnx"])
    assert functional["eager"]["status"] == "ok"
    assert functional["export"]["status"] == "ok" and functional["onnx"]["status"] == "ok"
    stateful = _records(cases["MeanSquaredError[update+compute]"], ["eager", "export"])
    assert stateful["eager"]["status"] == "ok"
    assert stateful["export"]["status"] in {"ok", "fail"}
    text = _records(cases["word_error_rate"], ["eager", "export"])
    # A string metric has no tensor input: never "ok".
    assert text["eager"]["status"] == "ok" and text["export"]["status"] != "ok"

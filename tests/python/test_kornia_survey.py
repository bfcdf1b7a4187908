"""The Kornia survey end to end through the real binary: the eager pass over every case, split
across workers, and the quick tier through all four paths to a snapshot and a page. Both are
shared fixtures (conftest.py, user_install.py): other tests read the same runs."""

from __future__ import annotations

import json
from pathlib import Path

from capmap_testing import records, run_capmap
from user_install import UserSurvey

KORNIA = "capmap.registries.kornia"
SUPPORTED = {"ok", "ok-breaks", "ok-unverified"}


def test_eager_pass_over_the_whole_registry(capmap_bin: Path, kornia_eager_store: Path) -> None:
    listed = json.loads(run_capmap(capmap_bin, "list", KORNIA, "--json").stdout)["cases"]
    assert len(listed) >= 1200
    found = records(kornia_eager_store)
    problems = []
    for c in listed:
        record = found.get((c["name"], "eager"))
        if record is None:
            problems.append(f"{c['name']}: no eager record")
        elif c["skip"]:
            if record["status"] != "skipped":
                problems.append(f"{c['name']}: skipped case recorded as {record['status']}")
        elif record["status"] == "no-tensor-output":
            # Every case probes something, unless the public API returns no tensor by design.
            if "no tensor output" not in c["note"]:
                problems.append(f"{c['name']}: returns no tensor and its note does not say why")
        elif record["status"] != "ok":
            problems.append(
                f"{c['where']}: {c['name']}: {record['status']}: {record.get('message', '')[:200]}"
            )
    assert not problems, "\n".join(problems)


def test_quick_tier_through_all_paths(user_survey: UserSurvey) -> None:
    """What the README's first command runs: the default registry's quick tier, merged and
    rendered, by capmap as a user installs it (the wheel's survey, shared with test_wheel)."""
    done, out = user_survey.survey, user_survey.out
    assert done.returncode == 0, done.stderr[-3000:]
    snapshot = json.loads((out / "snapshot.json").read_text())
    assert snapshot["header"]["library"]["name"] == "kornia"
    assert snapshot["header"]["complete"] is True
    # The coverage figure travels from the worker through the store to the header and the page.
    coverage = snapshot["header"]["coverage"]
    assert coverage["total"] > 800 and coverage["percent"] >= 95
    cases = snapshot["cases"]
    assert 30 <= len(cases) <= 60
    assert all("quick" in c["tags"] for c in cases)
    packages = {c["package"] for c in cases}
    assert {"augmentation", "geometry", "color", "filters", "feature"} <= packages
    for c in cases:
        assert set(c["paths"]) == {"eager", "onnx", "export", "compile"}, c["name"]
        eager = c["paths"]["eager"]
        assert eager["page_status"] in SUPPORTED, (
            c["name"],
            eager.get("detail") or eager.get("message"),
            eager.get("log_tail", "")[-2000:],
        )
        for path in ("onnx", "export", "compile"):
            entry = c["paths"][path]
            if entry["page_status"] not in SUPPORTED:
                # Every failure is explained by a cause a reader understands.
                assert entry.get("cause"), (c["name"], path, entry)
    # Most quick-tier operators capture somewhere; a total wipe-out means the probes broke.
    for path in ("onnx", "export", "compile"):
        ok = sum(c["paths"][path]["page_status"] in SUPPORTED for c in cases)
        assert ok >= len(cases) // 2, (path, ok)
    page = (out / "page.html").read_text()
    assert "kornia" in page and "<script" in page
    assert f"{coverage['covered']} of {coverage['total']}" in page

"""The Kornia survey end to end through the real binary: the eager pass over every case, split
across workers, and the quick tier through all four paths to a snapshot and a page."""

from __future__ import annotations

import json
import time
from pathlib import Path

from capmap_testing import records, run_capmap

KORNIA = "capmap.registries.kornia"
SUPPORTED = {"ok", "ok-breaks", "ok-unverified"}


def test_eager_pass_over_the_whole_registry(capmap_bin: Path, tmp_path: Path) -> None:
    store = tmp_path / "eager.db"
    started = time.perf_counter()
    done = run_capmap(
        capmap_bin,
        "run",
        KORNIA,
        "--all",
        "--paths",
        "eager",
        "--jobs",
        "2",
        "--timeout",
        "120",
        "--store",
        store,
        "--no-merge",
        timeout=1800,
    )
    print(f"eager pass over the whole Kornia registry: {time.perf_counter() - started:.0f} s")
    assert done.returncode == 0, done.stderr[-2000:]
    listed = json.loads(run_capmap(capmap_bin, "list", KORNIA, "--json").stdout)["cases"]
    assert len(listed) >= 1200
    found = records(store)
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


def test_quick_tier_through_all_paths(capmap_bin: Path, tmp_path: Path) -> None:
    """What the README's first command runs: the default registry's quick tier, merged and
    rendered."""
    out = tmp_path / "results"
    started = time.perf_counter()
    done = run_capmap(
        capmap_bin,
        "run",
        "--jobs",
        "2",
        "--store",
        out / "results.db",
        "--out",
        out,
        timeout=2400,
        cwd=tmp_path,
    )
    print(f"quick tier, all paths: {time.perf_counter() - started:.0f} s")
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

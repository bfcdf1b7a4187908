"""The published Kornia survey (surveys/kornia/): a complete run of the whole bundled registry,
which a fresh clone renders, diffs against and quotes.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from capmap_testing import REPO, RegistryDigests, run_capmap

SURVEY = REPO / "surveys" / "kornia"
SNAPSHOT = SURVEY / "snapshot.json"


def test_the_snapshot_is_a_complete_run_of_the_whole_registry() -> None:
    snapshot = json.loads(SNAPSHOT.read_text())
    header = snapshot["header"]
    assert header["complete"] is True and header["missing"] == 0
    selection = header["selection"]
    assert selection["shard"] is None and not selection["only"] and not selection["tags"]
    assert selection["cases"] == selection["registry_cases"] == len(snapshot["cases"]) >= 1500
    assert header["library"]["name"] == "kornia"
    for case in snapshot["cases"]:
        assert set(header["paths"]) <= set(case["paths"]), case["name"]
    # The bundled registry still has every case, so a diff against a new run lines up (cases
    # added since are new in that diff, not missing).
    sys.path.insert(0, str(REPO / "python"))
    from capmap import registry

    bundled = {c.name for c in registry.load(["capmap.registries.kornia"]).cases}
    assert {c["name"] for c in snapshot["cases"]} <= bundled


def test_a_fresh_clone_renders_and_diffs_the_published_snapshot(capmap_bin: Path, tmp_path: Path) -> None:
    page, md = tmp_path / "page.html", tmp_path / "summary.md"
    rendered = run_capmap(capmap_bin, "render", SNAPSHOT, "--html", page, "--md", md)
    assert rendered.returncode == 0, rendered.stderr
    assert page.stat().st_size > 100_000
    # The committed summary is what render writes from the committed snapshot.
    assert md.read_text() == (SURVEY / "summary.md").read_text()
    same = run_capmap(capmap_bin, "diff", SNAPSHOT, SNAPSHOT)
    assert same.returncode == 0, same.stderr


def test_the_committed_version_matrix_is_what_history_writes(capmap_bin: Path, tmp_path: Path) -> None:
    """history.{html,md,rst} are renderings of the committed snapshots and Kornia's own file
    (the command in surveys/kornia/README.md): a change to either, or to the renderer, that
    leaves them stale fails here."""
    # The pages name each input as the command named it: the README's paths, from the checkout.
    inputs = [f"surveys/kornia/{v}/snapshot.json" for v in ("torch-2.9.1", "torch-2.11.0", "torch-2.14.1")]
    inputs += ["surveys/kornia/snapshot.json", "../shared/data/kornia/export_support.json"]
    done = run_capmap(capmap_bin, "history", *inputs, "--out", tmp_path, cwd=REPO)
    assert done.returncode == 0, done.stderr
    for kind in ("html", "md", "rst"):
        name = f"history.{kind}"
        assert (tmp_path / name).read_bytes() == (SURVEY / name).read_bytes(), f"{name} is stale"


def test_every_published_snapshot_has_the_causes_the_shipped_rules_give(
    capmap_bin: Path, tmp_path: Path
) -> None:
    # A pull request's snapshot classifies its carried cells with the shipped rules; a baseline
    # classified by older rules would show each cell whose wording changed as a changed cause.
    published = sorted((REPO / "surveys").glob("**/snapshot.json"))
    assert SNAPSHOT in published and len(published) >= 5
    for snapshot in published:
        again = tmp_path / "again.json"
        done = run_capmap(capmap_bin, "causes", snapshot, "--write", again)
        assert done.returncode == 0, done.stderr
        assert again.read_bytes() == snapshot.read_bytes(), (
            f"{snapshot.relative_to(REPO)}: run `capmap causes {snapshot.relative_to(REPO)} --write "
            f"{snapshot.relative_to(REPO)}` after changing rules/causes.toml"
        )


def test_the_readme_quotes_the_snapshot() -> None:
    figures = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "survey_figures.py"), str(SNAPSHOT)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    readme = (SURVEY / "README.md").read_text()
    # Every row of the per-path table the script prints stands in the README as it is.
    rows = [line for line in figures.splitlines() if line.startswith("| ") and "---" not in line]
    assert len(rows) >= 5
    for row in rows:
        assert row in readme, row


SUPPORTED = ("ok", "ok-breaks", "ok-unverified")
FAILING = ("fail", "mismatch", "specialized", "crashed", "timeout", "oom")


def test_no_published_ok_took_no_input() -> None:
    # An "ok" says the operator was captured: some input reached the graph. A capture that took
    # none is `constant`, shown apart.
    snapshot = json.loads(SNAPSHOT.read_text())
    for case in snapshot["cases"]:
        for path in ("export", "onnx"):
            record = case["paths"].get(path, {})
            if record.get("page_status") in SUPPORTED:
                assert record.get("graph_inputs", 0) > 0, (case["name"], path)
            if record.get("page_status") == "constant":
                assert record["message"], (case["name"], path)


def test_no_published_failure_is_located_in_capmap() -> None:
    # A failure whose innermost frame is capmap's own code describes the harness, not the operator.
    snapshot = json.loads(SNAPSHOT.read_text())
    for case in snapshot["cases"]:
        for path, record in case["paths"].items():
            if record.get("page_status") in FAILING and record.get("frames"):
                assert not record["frames"][-1].startswith("capmap/"), (case["name"], path, record["frames"])


def test_no_case_compares_only_empty_outputs_unless_it_says_why() -> None:
    # A probe whose every output is empty (no match, no keypoint) compares nothing.
    snapshot = json.loads(SNAPSHOT.read_text())
    for case in snapshot["cases"]:
        outputs = case["paths"].get("eager", {}).get("outputs") or []
        shapes = [o.split("[", 1)[1].split("]", 1)[0].split(",") for o in outputs if o.startswith("Tensor[")]
        if shapes and len(shapes) == len(outputs) and all("0" in dims for dims in shapes):
            assert case.get("empty"), case["name"]


def test_every_published_case_computes_on_what_the_registry_gives_it(kornia_digests: RegistryDigests) -> None:
    """The snapshot's input digests are the bundled registry's: a registry edit that changes a
    case's inputs, weights or random state needs that case measured again and published. (The
    digests of this machine as is, shared with test_machine_independence.)"""
    done = kornia_digests.done
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    cases = kornia_digests.published_cases
    assert done.stdout.endswith(f"0 changed, 0 added, 0 removed of {cases} cases\n")

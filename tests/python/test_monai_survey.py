"""The MONAI survey (surveys/monai/): a library capmap does not bundle, surveyed from a registry
kept beside its snapshot, whose failures the shipped cause rules explain."""

from __future__ import annotations

import json
import re
from pathlib import Path

from capmap_testing import REPO, run_capmap

SURVEY = REPO / "surveys" / "monai"
SNAPSHOT = SURVEY / "snapshot.json"


def test_the_snapshot_is_a_complete_run_of_the_monai_registry() -> None:
    snapshot = json.loads(SNAPSHOT.read_text())
    header = snapshot["header"]
    assert header["library"]["name"] == "monai"
    assert header["complete"] is True and header["missing"] == 0
    selection = header["selection"]
    assert selection["shard"] is None and not selection["only"] and not selection["tags"]
    assert selection["cases"] == selection["registry_cases"] == len(snapshot["cases"]) >= 60
    for case in snapshot["cases"]:
        assert set(header["paths"]) <= set(case["paths"]), case["name"]


def test_the_shipped_rules_explain_all_but_five_percent_of_its_failures_and_breaks(
    capmap_bin: Path,
) -> None:
    # `causes SNAPSHOT` classifies every cell again with the rules, so the shares are the
    # current rules' and not the causes stored when the snapshot was merged.
    done = run_capmap(capmap_bin, "causes", SNAPSHOT, "--unclassified", cwd=REPO)
    assert done.returncode == 0, done.stderr
    failures, breaks = done.stdout.splitlines()[:2]
    found = re.fullmatch(r"unclassified: (\d+) of (\d+) failing case × path cells \([\d.]+ %\)", failures)
    assert found, failures
    assert int(found[2]) >= 50 and int(found[1]) / int(found[2]) < 0.05, done.stdout
    # A graph break is no failure, but its reason is what a user reads to remove it.
    found = re.fullmatch(r"unclassified graph breaks: (\d+) of (\d+) break reasons \([\d.]+ %\)", breaks)
    assert found, breaks
    assert int(found[2]) >= 50 and int(found[1]) / int(found[2]) < 0.05, done.stdout

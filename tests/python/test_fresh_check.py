"""A cell that went through the ONNX exporter's strict fallback is measured again in a fresh
process, the process a user's export script is.

`kornia.geometry.epipolar.random_intrinsics` exports to ONNX only after something has been
compiled in the process (dynamo's skip rules for `torch.distributions`); every child of a
worker starts after the warm-up's compile. Its cell is the fresh process's `export-fail`, as a
plain `torch.onnx.export` script says; `utils.batched_forward`, whose strict fallback works in
either process, stays `ok`.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from capmap_testing import python_env, records, run_capmap

USER_SCRIPT = """\
import torch
import kornia.geometry.epipolar as epi


class RandomIntrinsics(torch.nn.Module):
    def forward(self):
        return epi.random_intrinsics(0.0, 1.0)


try:
    torch.onnx.export(RandomIntrinsics(), (), dynamo=True)
except Exception as exc:
    print("fails:", type(exc).__name__)
else:
    print("exports")
"""


def test_a_strict_fallback_cell_is_what_a_fresh_process_gives(capmap_bin: Path, tmp_path: Path) -> None:
    store = tmp_path / "results.db"
    cases = ["--only", "=random_intrinsics", "--only", "=utils.batched_forward"]
    done = run_capmap(capmap_bin, "run", "--all", *cases, "--paths", "eager,export,onnx", "--jobs", "1",
                      "--store", store, "--no-merge", timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    found = records(store)

    random = found[("random_intrinsics", "onnx")]
    assert random["status"] == "export-fail", random
    assert random["fresh_check"].endswith("where torch.compile has already run, constant")
    assert "files" not in random  # the case's code is the warm trace's, in its eager record
    # What a user's own export script sees, in a process of its own.
    user = subprocess.run([sys.executable, "-c", USER_SCRIPT], capture_output=True, text=True,
                          env=python_env(), timeout=300, check=False)  # fmt: skip
    assert user.stdout.strip().startswith("fails:"), user.stdout + user.stderr[-2000:]

    batched = found[("utils.batched_forward", "onnx")]
    assert (batched["status"], batched["strategy"], batched["fresh_check"]) == ("ok", "strict", "same")

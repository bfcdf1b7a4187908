"""The input digest of each case (`inputs` in the inventory): the same in every process, moved
by any change of what the case computes on, kept when the case only moves."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from capmap import registry
from capmap_testing import PYTHON_DIR, python_env

HEAD = """
import torch
from capmap import case, deferred

BUILT = []


def build_linear(n: int) -> torch.nn.Module:
    BUILT.append(n)  # the digest must not build a deferred target
    return torch.nn.Linear(n, n)


torch.manual_seed(SEED)
conv = torch.nn.Conv2d(3, 4, 3)
# Weights under eight levels of nested modules: the digest reads them too.
deep = torch.nn.Linear(3, 3)
for _ in range(8):
    deep = torch.nn.Sequential(deep)
offset = torch.full((1, 3, 8, 8), OFFSET)
x = torch.rand(1, 3, 8, 8, generator=torch.Generator().manual_seed(1))
"""

CASES = {
    "conv": 'case("conv", "nn.conv", conv, [x])',
    "shifted": 'case("shifted", "nn.add", lambda t: torch.relu(t + offset), [x])',
    "linear": 'case("linear", "nn.linear", deferred(build_linear, WIDTH), [torch.ones(2, WIDTH)])',
    "clamp": 'case("clamp", "nn.clamp", torch.clamp, [x], {"min": 0.25})',
    "deep": 'case("deep", "nn.deep", deep, [torch.ones(2, 3)])',
}


def write(folder: Path, name: str, order: list[str], *, seed: int = 0, offset: float = 0.5,
          width: int = 4, blank: int = 0) -> Path:  # fmt: skip
    text = HEAD.replace("SEED", str(seed)).replace("OFFSET", str(offset)) + "\n" * blank
    text += "\n".join(CASES[c].replace("WIDTH", str(width)) for c in order) + "\n"
    path = folder / name
    path.write_text(text)
    return path


def digests(path: Path) -> dict[str, str]:
    reg = registry.load([str(path)])
    assert not reg.modules[0].BUILT, "digesting built a deferred target"
    return {entry["name"]: entry["inputs"] for entry in registry.inventory(reg)}


def test_the_digest_follows_what_the_case_computes_on(tmp_path: Path) -> None:
    order = list(CASES)
    base = digests(write(tmp_path, "base.py", order))
    assert len(set(base.values())) == len(base) and all(len(d) == 16 for d in base.values())

    # Another file, another order, other lines: the same digests.
    assert digests(write(tmp_path, "moved.py", order[::-1], blank=7)) == base

    def changed(**edit: Any) -> set[str]:
        now = digests(write(tmp_path, "edited.py", order, **edit))
        return {name for name in base if now[name] != base[name]}

    # Weights drawn from another seed, a global the lambda reads, a deferred constructor's
    # argument (its input too): each moves exactly the cases that use it.
    assert changed(seed=1) == {"conv", "deep"}
    assert changed(offset=0.75) == {"shifted"}
    assert changed(width=5) == {"linear"}


def test_the_digest_is_the_same_in_every_process(tmp_path: Path) -> None:
    path = write(tmp_path, "base.py", list(CASES))
    script = (
        "import json, sys\nfrom capmap import registry\n"
        "reg = registry.load([sys.argv[1]])\n"
        "print(json.dumps({e['name']: e['inputs'] for e in registry.inventory(reg)}))\n"
    )
    seen = []
    for hash_seed in ("1", "2"):
        env = python_env(PYTHONPATH=str(PYTHON_DIR), PYTHONHASHSEED=hash_seed)
        done = subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True, text=True,
                              env=env, check=False, cwd=tmp_path if hash_seed == "1" else os.sep)  # fmt: skip
        assert done.returncode == 0, done.stderr
        seen.append(json.loads(done.stdout))
    assert seen[0] == seen[1] == digests(path)


def test_the_digest_script_names_the_cases_an_edit_changed(tmp_path: Path) -> None:
    script = PYTHON_DIR.parent / "scripts" / "registry_digests.py"
    env = python_env(PYTHONPATH=str(PYTHON_DIR))

    def run(path: Path, *extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, str(script), str(path), *extra], capture_output=True,
                              text=True, env=env, check=False)  # fmt: skip

    before = tmp_path / "before.json"
    done = run(write(tmp_path, "base.py", list(CASES)), "--out", str(before))
    assert done.returncode == 0, done.stderr
    moved = run(write(tmp_path, "moved.py", list(CASES)[::-1], blank=3), "--against", str(before))
    assert moved.returncode == 0 and moved.stdout.endswith("0 changed, 0 added, 0 removed of 5 cases\n")
    reseeded = run(write(tmp_path, "edited.py", list(CASES), seed=2), "--against", str(before))
    assert reseeded.returncode == 1, reseeded.stderr
    assert reseeded.stdout.splitlines()[:-1] == ["changed\tconv", "changed\tdeep"]

"""One compile cache per worker: a graph one child compiled is a cache hit in every later child.

A long-lived process finds the kernels of an earlier case in its cache folder; so must a run's
children, whichever child compiled them and whatever the operator is called.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from capmap_testing import python_env, records

# Two operators with different names and one body: dynamo hands inductor the same graph.
SAME_GRAPH_REGISTRY = """\
import torch
from capmap import case

def scale_then_shift(x):
    return torch.sin(x) * 3.0 + 1.0

def other_name_same_graph(x):
    return torch.sin(x) * 3.0 + 1.0

case('scale_then_shift', 'cache.first', scale_then_shift, [torch.linspace(0, 1, 24).reshape(2, 12)])
case('other_name_same_graph', 'cache.second', other_name_same_graph,
     [torch.linspace(0, 1, 24).reshape(2, 12)])
"""


def test_a_graph_compiled_by_one_child_is_a_cache_hit_in_the_next(capmap_bin: Path, tmp_path: Path) -> None:
    registry = tmp_path / "same_graph.py"
    registry.write_text(SAME_GRAPH_REGISTRY)
    store = tmp_path / "results.db"
    env = python_env(TMPDIR=str(tmp_path))  # a cold cache slot of this test's own
    env.pop("TORCHINDUCTOR_CACHE_DIR", None)
    run = subprocess.run(
        [str(capmap_bin), "run", str(registry), "--store", str(store), "--no-merge"]
        + ["--paths", "eager,compile", "--jobs", "1", "--fresh-children"],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        check=False,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    stored = records(store)
    first, second = stored[("scale_then_shift", "compile")], stored[("other_name_same_graph", "compile")]
    assert first["status"] == second["status"] == "ok"
    # Two fresh children, one after the other: the first compiled, the second found its graph.
    assert first["graph_cache_misses"] >= 1 and first["graph_cache_hits"] == 0
    assert second["graph_cache_hits"] >= 1 and second["graph_cache_misses"] == 0
    assert list(tmp_path.glob("capmap-inductor-*/slot-0/fxgraph"))

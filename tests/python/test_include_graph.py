"""scripts/include_graph.py: the engine's rooms and Python's depend on each other only downwards."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "include_graph.py"


def run_check(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), str(root)], capture_output=True, text=True, check=False
    )


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def problems(root: Path, files: dict[str, str]) -> list[str]:
    """The lines the check prints for a tree of `files`, which must break the order."""
    write(root, files)
    result = run_check(root)
    assert result.returncode == 1, result.stdout + result.stderr
    return result.stdout.splitlines()


def test_the_engine_depends_only_downwards() -> None:
    result = run_check(REPO)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout == ""


def test_an_include_that_points_up_is_named(tmp_path: Path) -> None:
    lines = problems(
        tmp_path,
        {
            "src/store/result_store.h": '#pragma once\n#include "common/user_error.h"\n',
            "src/store/result_store.cc": '#include "store/result_store.h"\n#include "merge/merge.h"\n',
            "src/merge/merge.h": '#pragma once\n#include "store/result_store.h"\n',
            "src/merge/merge.cc": '#include <sqlite3.h>\n#include "merge/merge.h"\n',
            "src/common/user_error.h": "#pragma once\n",
        },
    )
    assert "src/store/result_store.cc:2: includes merge/merge.h: merge is above store" in lines
    assert "src/merge/merge.cc:1: includes <sqlite3.h>: only store may" in lines
    # store -> merge -> store: the upward include closes a cycle.
    assert "rooms in a dependency cycle: merge, store" in lines


def test_a_link_that_points_up_or_is_missing_is_named(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "src/common/fnv_hash.h": "#pragma once\n",
            "src/store/run_key.cc": '#include "common/fnv_hash.h"\n',
            "src/run/shard.cc": '#include "common/fnv_hash.h"\n',
            "CMakeLists.txt": (
                "capmap_component(common)\ncapmap_component(store)\ncapmap_component(run)\n"
                "target_link_libraries(capmap_common PUBLIC capmap_run)\n"
            ),
        },
    )
    lines = run_check(tmp_path).stdout.splitlines()
    assert "CMakeLists.txt:4: capmap_common links capmap_run: run is above common" in lines
    assert (
        "src/store/run_key.cc:1: includes common/fnv_hash.h: capmap_store does not link capmap_common"
        in lines
    )


def test_a_room_outside_the_declared_order_is_named(tmp_path: Path) -> None:
    write(tmp_path, {"src/extras/tool.cc": '#include "common/user_error.h"\n'})
    result = run_check(tmp_path)
    assert result.returncode == 1
    assert "src/extras/: room 'extras' is not in the declared order" in result.stdout.splitlines()


# A probe that imports the worker, at the top of its file and inside a function.
PROBE_IMPORTS_WORKER = {
    "src/common/user_error.h": "#pragma once\n",
    "python/capmap/__init__.py": "from capmap.cases import case\n",
    "python/capmap/cases.py": "def case() -> None: ...\n",
    "python/capmap/worker/__init__.py": "",
    "python/capmap/worker/protocol.py": "from capmap.probes import eager\n",
    "python/capmap/probes/__init__.py": "",
    "python/capmap/probes/eager.py": (
        "from capmap import case\nfrom ..worker import protocol\n\n\n"
        "def probe() -> None:\n    import capmap.worker.protocol\n"
    ),
    "python/capmap/probes/fresh_check.py": "from capmap.cases import case\nfrom . import eager\n",
}


def test_a_probe_that_imports_the_worker_is_named(tmp_path: Path) -> None:
    lines = problems(tmp_path, PROBE_IMPORTS_WORKER)
    # At the top of the file (relative) and inside a function: both are imports of the worker.
    assert "python/capmap/probes/eager.py:2: imports capmap.worker: worker is above probes" in lines
    assert "python/capmap/probes/eager.py:6: imports capmap.worker.protocol: worker is above probes" in lines
    assert "Python rooms in a dependency cycle: probes, worker" in lines
    # Downward imports, and a name of the package itself, are fine.
    assert not [line for line in lines if "fresh_check" in line or "imports capmap.cases" in line]
    assert len(lines) == 3, lines


def test_a_python_room_outside_the_declared_order_is_named(tmp_path: Path) -> None:
    files = {
        "src/common/user_error.h": "#pragma once\n",
        "python/capmap/cases.py": "",
        "python/capmap/plugins/loader.py": "from capmap import cases\n",
    }
    assert "python/capmap/plugins/: room 'plugins' is not in the declared order" in problems(tmp_path, files)

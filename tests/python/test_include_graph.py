"""scripts/include_graph.py: the engine's rooms depend on each other only downwards."""

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


def test_the_engine_depends_only_downwards() -> None:
    result = run_check(REPO)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout == ""


def test_an_include_that_points_up_is_named(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "src/store/result_store.h": '#pragma once\n#include "common/user_error.h"\n',
            "src/store/result_store.cc": '#include "store/result_store.h"\n#include "merge/merge.h"\n',
            "src/merge/merge.h": '#pragma once\n#include "store/result_store.h"\n',
            "src/merge/merge.cc": '#include <sqlite3.h>\n#include "merge/merge.h"\n',
            "src/common/user_error.h": "#pragma once\n",
        },
    )
    result = run_check(tmp_path)
    assert result.returncode == 1
    lines = result.stdout.splitlines()
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

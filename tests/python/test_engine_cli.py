"""`capmap list` and bad input to `capmap run`: one clear line, exit 2, the store untouched."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from capmap_testing import EXAMPLE, REPO, python_env, query, run_capmap


def files_state(folder: Path) -> dict[str, tuple[bytes, int]]:
    """Bytes and modification time of the store and its write-ahead log in `folder`.

    The -shm file is left out: it is SQLite's shared-memory index, which any reader updates.
    """
    return {
        p.name: (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(folder.iterdir())
        if p.is_file() and not p.name.endswith("-shm")
    }


def one_line(stderr: str) -> str:
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, f"expected one line on stderr, got:\n{stderr}"
    return lines[0]


STEADY_REGISTRY = """\
import torch
from capmap import case

case("relu", "math.activation", torch.relu, [torch.ones(2, 3) - 0.5])
case("matmul", "math.linalg", torch.matmul, [torch.ones(2, 3), torch.ones(3, 4)])
"""


@pytest.fixture(scope="module")
def stored(capmap_bin: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store holding a finished eager run of a two-case registry.

    The registry lives outside any git checkout, so its run key cannot change between runs.
    """
    folder = tmp_path_factory.mktemp("store")
    registry = write_registry(folder, "steady.py", STEADY_REGISTRY)
    store = folder / "results.db"
    done = run_capmap(
        capmap_bin, "run", registry, "--paths", "eager", "--jobs", "1", "--store", store, "--no-merge"
    )
    assert done.returncode == 0, done.stderr
    assert query(store, "SELECT COUNT(*) FROM records") == [(2,)]
    return store


def write_registry(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text)
    return path


BAD_REGISTRIES = {
    "syntax.py": (
        "from capmap import case\ncase('a', 'g', print, [\n",
        ["syntax.py:", "syntax"],
    ),
    "missing_import.py": (
        "import torch\nimport capmap_no_such_package_xyz\n",
        ["missing_import.py:2", "capmap_no_such_package_xyz"],
    ),
    "duplicate.py": (
        "import torch\nfrom capmap import case\n"
        "case('twice', 'g.h', torch.relu, [torch.zeros(1)])\n"
        "case('twice', 'g.h', torch.relu, [torch.ones(1)])\n",
        ["duplicate.py:4", "duplicate.py:3", "twice"],
    ),
}


@pytest.mark.parametrize("name", sorted(BAD_REGISTRIES))
def test_a_registry_that_cannot_load_is_one_line_and_exit_2(
    capmap_bin: Path, stored: Path, tmp_path: Path, name: str
) -> None:
    text, expected = BAD_REGISTRIES[name]
    registry = write_registry(tmp_path, name, text)
    before = files_state(stored.parent)
    done = run_capmap(
        capmap_bin, "run", registry, "--paths", "eager", "--jobs", "1", "--store", stored, "--no-merge"
    )
    assert done.returncode == 2, done.stderr
    line = one_line(done.stderr)
    for part in expected:
        assert part in line, line
    assert files_state(stored.parent) == before


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--only", "no_case_is_called_this"], "no_case_is_called_this"),
        (["--shard", "3/2"], "3/2"),
        (["--shard", "one/two"], "one/two"),
        (["--paths", "eager,teleport"], "teleport"),
        (["--memory-limit", "lots"], "lots"),
    ],
)
def test_bad_options_are_one_line_and_exit_2(
    capmap_bin: Path, stored: Path, args: list[str], expected: str
) -> None:
    before = files_state(stored.parent)
    done = run_capmap(capmap_bin, "run", EXAMPLE, "--jobs", "1", "--store", stored, "--no-merge", *args)
    assert done.returncode == 2, done.stderr
    assert expected in one_line(done.stderr)
    assert files_state(stored.parent) == before


def test_an_unknown_registry_module_is_one_line_and_exit_2(capmap_bin: Path, stored: Path) -> None:
    before = files_state(stored.parent)
    done = run_capmap(
        capmap_bin, "run", "capmap_no_such_registry", "--jobs", "1", "--store", stored, "--no-merge"
    )
    assert done.returncode == 2
    assert "capmap_no_such_registry" in one_line(done.stderr)
    assert files_state(stored.parent) == before


def test_a_store_that_is_not_a_database_is_refused_and_kept(capmap_bin: Path, tmp_path: Path) -> None:
    store = tmp_path / "results.db"
    store.write_bytes(b"this is not an SQLite database\n" * 100)
    before = files_state(tmp_path)
    done = run_capmap(
        capmap_bin, "run", EXAMPLE, "--paths", "eager", "--jobs", "1", "--store", store, "--no-merge"
    )
    assert done.returncode == 2
    assert "results.db" in one_line(done.stderr)
    assert files_state(tmp_path) == before


def test_rerun_with_the_same_key_stores_nothing_new(capmap_bin: Path, stored: Path) -> None:
    sql = "SELECT run_key, case_name, path, record, created FROM records ORDER BY case_name"
    before = query(stored, sql)
    registry = stored.with_name("steady.py")
    done = run_capmap(
        capmap_bin, "run", registry, "--paths", "eager", "--jobs", "1", "--store", stored, "--no-merge"
    )
    assert done.returncode == 0, done.stderr
    assert query(stored, sql) == before


@pytest.fixture(scope="module")
def example_listing() -> dict:
    return worker_listing(EXAMPLE)


def worker_listing(*registries: str | Path) -> dict:
    done = subprocess.run(
        [sys.executable, "-m", "capmap.worker", "--list", *map(str, registries)],
        capture_output=True,
        text=True,
        env=python_env(),
        timeout=600,
        check=True,
    )
    return json.loads(done.stdout)


def test_list_prints_every_case_with_group_and_skip_reason(capmap_bin: Path, example_listing: dict) -> None:
    done = run_capmap(capmap_bin, "list", EXAMPLE)
    assert done.returncode == 0, done.stderr
    rows = {ln.split()[0]: ln for ln in done.stdout.splitlines()[1:] if ln.strip()}
    for c in example_listing["cases"]:
        assert c["name"] in rows
        assert c["group"] in rows[c["name"]]
        if c["skip"]:
            assert c["skip"] in rows[c["name"]]


def test_list_narrows_by_only_as_run_does(capmap_bin: Path, example_listing: dict) -> None:
    """`list --only` lists what `run --only` would run, and refuses a pattern that matches nothing."""
    done = run_capmap(capmap_bin, "list", EXAMPLE, "--only", "math.activation", "--only", "=matmul")
    assert done.returncode == 0, done.stderr
    names = [ln.split()[0] for ln in done.stdout.splitlines()[1:-1] if ln.strip()]
    expected = [
        c["name"]
        for c in example_listing["cases"]
        if c["group"] == "math.activation" or c["name"] == "matmul"
    ]
    assert sorted(names) == sorted(expected) and len(names) < len(example_listing["cases"])
    as_json = json.loads(run_capmap(capmap_bin, "list", "--json", EXAMPLE, "--only", "=matmul").stdout)
    assert [c["name"] for c in as_json["cases"]] == ["matmul"]
    refused = run_capmap(capmap_bin, "list", EXAMPLE, "--only", "bogus_xyz")
    assert refused.returncode == 2
    assert refused.stderr.strip() == "capmap: --only 'bogus_xyz': matches no case name, name prefix or group"


def test_list_json_survives_a_registry_that_prints(capmap_bin: Path, tmp_path: Path) -> None:
    chatty = write_registry(
        tmp_path,
        "chatty.py",
        "import torch\nfrom capmap import case\nprint('registry says hello', end='')\n"
        "case('neg', 'math.sign', torch.neg, [torch.ones(2)], note='prints at import')\n",
    )
    done = run_capmap(capmap_bin, "list", "--json", chatty)
    assert done.returncode == 0, done.stderr
    listed = json.loads(done.stdout)
    assert [c["name"] for c in listed["cases"]] == ["neg"]
    assert listed["cases"][0]["note"] == "prints at import"
    assert listed["cases"][0]["where"].endswith("chatty.py:4")


def test_list_json_matches_the_worker_inventory(capmap_bin: Path, example_listing: dict) -> None:
    done = run_capmap(capmap_bin, "list", "--json", EXAMPLE)
    assert done.returncode == 0, done.stderr
    listed = json.loads(done.stdout)
    assert listed["cases"] == example_listing["cases"]
    assert listed["library"]["name"] == "example"


def test_list_of_a_broken_registry_is_one_line_and_exit_2(capmap_bin: Path, tmp_path: Path) -> None:
    registry = write_registry(tmp_path, "syntax.py", "def broken(:\n")
    done = run_capmap(capmap_bin, "list", registry)
    assert done.returncode == 2
    assert "syntax.py:1" in one_line(done.stderr)


def test_a_build_of_the_checkout_runs_the_checkouts_worker(capmap_bin: Path, tmp_path: Path) -> None:
    """With no PYTHONPATH, a build of this checkout still imports this checkout's capmap package,
    never an installed one (which may probe differently while speaking the same protocol)."""
    if not capmap_bin.resolve().is_relative_to(REPO):
        pytest.skip("an installed capmap runs its installed package")
    registry = tmp_path / "which.py"
    registry.write_text(
        "from pathlib import Path\n"
        "import capmap\n"
        "import torch\n"
        "from capmap import case\n"
        f"home = 'checkout' if Path(capmap.__file__).resolve().is_relative_to({str(REPO)!r}) else 'other'\n"
        "case(f'neg_{home}', 'math', torch.neg, [torch.ones(2)])\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["CAPMAP_PYTHON"] = sys.executable
    done = subprocess.run(
        [str(capmap_bin), "list", str(registry)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "neg_checkout" in done.stdout, done.stdout


def test_the_run_log_says_why_a_case_failed_eagerly(capmap_bin: Path, tmp_path: Path) -> None:
    registry = tmp_path / "reg.py"
    registry.write_text(
        "import torch\nfrom capmap import case\n\n\n"
        "def broken(x):\n    raise ValueError('the kernel size must be odd\\nsecond line')\n\n\n"
        "case('broken', 'toy', broken, [torch.ones(2)])\n"
        "case('fine', 'toy', torch.neg, [torch.ones(2)])\n"
    )
    done = run_capmap(
        capmap_bin, "run", registry, "--paths", "eager,export", "--store", tmp_path / "s.db", "--no-merge"
    )
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    (task,) = [i for i, line in enumerate(lines) if "] broken: eager fail" in line]
    # The reason follows its task's line: the error's type and first line, no more.
    assert lines[task + 1] == "  broken: ValueError: the kernel size must be odd"
    assert not any(line.startswith("  fine:") for line in lines)

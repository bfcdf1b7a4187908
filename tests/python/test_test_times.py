"""scripts/test_times.py: the test command's table of test-seconds by module, read from the JUnit
file a real pytest run writes."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "test_times.py"

SLOW = """
import time

def test_naps():
    time.sleep(0.6)

def test_naps_again():
    time.sleep(0.6)
"""
QUICK = "def test_at_once():\n    pass\n"


def test_the_slowest_module_comes_first_with_its_seconds_and_tests(tmp_path: Path) -> None:
    (tmp_path / "test_slow.py").write_text(SLOW)
    (tmp_path / "test_quick.py").write_text(QUICK)
    junit = tmp_path / "times.xml"
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={junit}"]
    ran = subprocess.run(
        [*argv, str(tmp_path)],
        capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120, check=False,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stdout + ran.stderr
    table = subprocess.run(
        [sys.executable, str(SCRIPT), str(junit)], capture_output=True, text=True, timeout=60, check=False
    )
    assert table.returncode == 0, table.stderr
    lines = table.stdout.splitlines()
    assert re.match(r"test-seconds by module \(\d+ in all, 3 tests\):", lines[0]), lines
    slow, quick = lines[1].split(), lines[2].split()
    assert slow[-1] == "test_slow" and slow[-3:-1] == ["2", "tests"]
    assert float(slow[0]) >= 1.2
    assert quick[-1] == "test_quick" and float(quick[0]) < float(slow[0])


def test_a_missing_file_is_one_line_and_exit_2(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), str(tmp_path / "none.xml")],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.startswith(f"test_times: {tmp_path / 'none.xml'}:")
    assert len(done.stderr.strip().splitlines()) == 1

"""What counts as a change of code: `file_trace.source_code_hash` keeps its hash through edits
of docstrings, comments and layout, moves it on any edit Python would run, and gives one code
the same hash under every Python the machine has."""

from __future__ import annotations

import glob
import importlib.util
import json
import os
import subprocess
from pathlib import Path

import pytest
from capmap.tracing.file_trace import recorded_hash, source_code_hash

ORIGINAL = b'''"""A module."""
import math


class Box:
    """A box."""

    def area(self, w: float, h: float = 1.0) -> float:
        """The area."""
        return w * h  # plain


def angle(x: float) -> float:
    return math.atan(x)
'''

SAME_CODE = {
    "docstrings reworded": ORIGINAL.replace(
        b'"""The area."""', b'"""The area of the box,\n\n    in units."""'
    ),
    "docstring added": ORIGINAL.replace(b"    return math.atan", b'    """Angle."""\n    return math.atan'),
    "comments and blank lines": ORIGINAL.replace(b"  # plain", b"").replace(
        b"import math\n", b"# hi\nimport math\n\n"
    ),
    "layout": ORIGINAL.replace(b"return w * h", b"return (w *\n                h)"),
}

OTHER_CODE = {
    "an operator": ORIGINAL.replace(b"w * h", b"w + h"),
    "a default": ORIGINAL.replace(b"h: float = 1.0", b"h: float = 2.0"),
    "an annotation": ORIGINAL.replace(b"-> float:\n    return math", b"-> int:\n    return math"),
    "a string that is not a docstring": ORIGINAL.replace(
        b"return math.atan(x)", b'return math.atan(x) or "a"'
    ),
    "a name": ORIGINAL.replace(b"def angle", b"def angle2"),
}


@pytest.mark.parametrize("edit", sorted(SAME_CODE))
def test_edits_python_does_not_run_keep_the_hash(edit: str) -> None:
    assert SAME_CODE[edit] != ORIGINAL
    assert source_code_hash(SAME_CODE[edit]) == source_code_hash(ORIGINAL)


@pytest.mark.parametrize("edit", sorted(OTHER_CODE))
def test_edits_python_runs_move_the_hash(edit: str) -> None:
    assert OTHER_CODE[edit] != ORIGINAL
    assert source_code_hash(OTHER_CODE[edit]) != source_code_hash(ORIGINAL)


def test_a_file_that_does_not_parse_records_its_content_hash_alone(tmp_path: Path) -> None:
    assert source_code_hash(b"def (") is None
    broken, good = tmp_path / "broken.py", tmp_path / "good.py"
    broken.write_bytes(b"def (")
    good.write_bytes(ORIGINAL)
    assert "." not in recorded_hash(str(broken)) and len(recorded_hash(str(broken))) == 16
    assert recorded_hash(str(good)).split(".")[1] == source_code_hash(ORIGINAL)
    assert recorded_hash(str(tmp_path / "gone.py")) == ""


def other_pythons() -> list[str]:
    """Interpreters of other minor versions on this machine (pyenv's, or on PATH)."""
    found = glob.glob(os.path.expanduser("~/.pyenv/versions/3.1[0-9]*/bin/python3"))
    found += [p for v in range(10, 15) for p in glob.glob(f"/usr/bin/python3.{v}")]
    return sorted(set(found))


def test_one_code_hashes_alike_under_every_python_here() -> None:
    """The hash of Kornia's installed files under each Python found equals this Python's, so a
    baseline made under one Python serves a pull request job under another."""
    pythons = other_pythons()
    if not pythons:
        pytest.skip("no other Python here")
    spec = importlib.util.find_spec("kornia")
    assert spec is not None and spec.origin is not None
    folder = Path(spec.origin).parent
    files = sorted(str(p) for p in folder.rglob("*.py"))[:150]
    here = {f: source_code_hash(Path(f).read_bytes()) for f in files}
    module = Path(__file__).resolve().parents[2] / "python" / "capmap" / "tracing" / "file_trace.py"
    # file_trace's hashing needs nothing but the standard library: load the file alone.
    script = (
        "import importlib.util, json, sys\n"
        f"spec = importlib.util.spec_from_file_location('ft', {str(module)!r})\n"
        "ft = importlib.util.module_from_spec(spec)\n"
        "sys.modules['capmap.errors'] = type(sys)('capmap.errors')\n"
        "sys.modules['capmap.errors'].LibraryRoot = object\n"
        "spec.loader.exec_module(ft)\n"
        "print(json.dumps({f: ft.source_code_hash(open(f, 'rb').read()) for f in sys.argv[1:]}))\n"
    )
    for python in pythons:
        done = subprocess.run([python, "-c", script, *files], capture_output=True, text=True, check=False)
        assert done.returncode == 0, (python, done.stderr)
        assert json.loads(done.stdout) == here, python

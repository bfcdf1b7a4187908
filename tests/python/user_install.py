"""capmap as a user installs it: the wheel scripts/build_wheel.sh builds from the sdist, a fresh
venv with nothing of this checkout on its paths, and the survey a user runs there (the README's
first command). Shared by the tests of the wheel and of the Kornia survey: built and run once."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from capmap_testing import REPO

# What the manylinux policy lets an executable link: glibc's own libraries and the loader.
ALLOWED = {"linux-vdso.so.1", "libc.so.6", "libm.so.6", "libpthread.so.0", "libdl.so.2", "librt.so.1"}
LOADER = "ld-linux-x86-64.so.2"
# The Debian libraries the engine used to link: hidden (bound over with /dev/null) in a mount
# namespace of its own, the installed binary must still run.
HIDDEN = ("libfmt.so.9", "libre2.so.9", "libtomlplusplus.so.3", "libsqlite3.so.0", "libz.so.1")
# While workers run, Python's own zlib and sqlite3 modules need the last two.
HIDDEN_FROM_RUNS = HIDDEN[:3]
LIBDIR = Path("/usr/lib/x86_64-linux-gnu")


@pytest.fixture(scope="session")
def wheel() -> Path:
    """The wheel of these sources: built once, kept while they do not change."""
    done = subprocess.run(
        ["bash", str(REPO / "scripts" / "build_wheel.sh")],
        capture_output=True, text=True, timeout=1800, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    path = Path(done.stdout.strip().splitlines()[-1])
    assert path.is_file(), done.stdout
    return path if path.is_absolute() else REPO / path


def clean_env(venv: Path) -> dict[str, str]:
    """What a user's shell has after `source venv/bin/activate`: no PYTHONPATH, no CAPMAP_PYTHON,
    no other Python with torch on PATH."""
    keep = {k: v for k, v in os.environ.items() if k in ("HOME", "LANG", "TMPDIR", "TERM")}
    return {**keep, "PATH": f"{venv / 'bin'}:/usr/bin:/bin", "VIRTUAL_ENV": str(venv)}


@pytest.fixture(scope="session")
def venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("user") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True, timeout=300)
    pip(folder, str(wheel))
    return folder


def pip(venv: Path, *args: str) -> None:
    # --no-compile: pip byte-compiles none of torch's thousands of modules; the few a run
    # imports are compiled as they load (measured: torch's install 55 s without it, 29 s with).
    argv = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--no-compile"]
    argv += ["-c", str(REPO / "constraints.txt")]
    done = subprocess.run(
        [*argv, *args], capture_output=True, text=True, env=clean_env(venv), timeout=1200, check=False
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]


def masked(argv: list[str], hidden: tuple[str, ...] = HIDDEN) -> list[str]:
    """argv run in a mount namespace where the `hidden` Debian libraries are empty files."""
    binds = " && ".join(f"mount --bind /dev/null {(LIBDIR / name).resolve()}" for name in hidden)
    return ["unshare", "--mount", "--", "sh", "-c", f'{binds} && exec "$@"', "sh", *argv]


def user_run(
    venv: Path, *args: str | Path, cwd: Path, hidden: tuple[str, ...] = HIDDEN
) -> subprocess.CompletedProcess[str]:
    argv = [str(venv / "bin" / "capmap"), *map(str, args)]
    return subprocess.run(
        masked(argv, hidden),
        capture_output=True, text=True, env=clean_env(venv), cwd=cwd, timeout=1800, check=False,
    )  # fmt: skip


@dataclass
class UserSurvey:
    """The quick tier a user surveys in the venv, and the refusals met on the way there."""

    without_kornia: subprocess.CompletedProcess[str]
    without_onnx: subprocess.CompletedProcess[str]
    refused_store: Path
    survey: subprocess.CompletedProcess[str]
    out: Path


@pytest.fixture(scope="session")
def user_survey(wheel: Path, venv: Path, tmp_path_factory: pytest.TempPathFactory) -> UserSurvey:
    """In the user's venv: torch, then `capmap run` (refused: no kornia extra), the kornia
    extra, `capmap run --paths eager,onnx` (refused: no onnx extra), the onnx extra, then the
    README's first command, `capmap run`: the bundled Kornia registry's quick tier through the
    four default paths, with two workers, where Debian's fmt, re2 and toml++ are hidden."""
    work = tmp_path_factory.mktemp("user_survey")
    pip(venv, "torch==2.13.0")
    refused_store = work / "none.db"
    without_kornia = user_run(venv, "run", "--store", refused_store, cwd=work, hidden=HIDDEN_FROM_RUNS)
    pip(venv, f"capmap[kornia] @ file://{wheel}")
    without_onnx = user_run(
        venv, "run", "--paths", "eager,onnx", "--store", refused_store, cwd=work, hidden=HIDDEN_FROM_RUNS
    )
    pip(venv, f"capmap[onnx] @ file://{wheel}")
    out = work / "results"
    survey = user_run(
        venv, "run", "--jobs", "2", "--store", out / "results.db", "--out", out, cwd=work,
        hidden=HIDDEN_FROM_RUNS,
    )  # fmt: skip
    return UserSurvey(without_kornia, without_onnx, refused_store, survey, out)

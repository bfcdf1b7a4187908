"""capmap as a user installs it: the wheel scripts/build_wheel.sh builds from the sdist, in a fresh
venv with nothing of this checkout on its paths. Its binary links nothing but glibc, so it runs
where Debian's fmt, re2 and toml++ cannot be found; with torch and the extras installed in that
venv, `capmap run` finds the venv's Python for its workers by itself."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
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


@pytest.fixture(scope="module")
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


@pytest.fixture(scope="module")
def venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("user") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True, timeout=300)
    pip(folder, str(wheel))
    return folder


def pip(venv: Path, *args: str) -> None:
    argv = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "-c", str(REPO / "constraints.txt")]
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


def test_the_wheel_is_manylinux_and_its_binary_links_only_glibc(wheel: Path, tmp_path: Path) -> None:
    name = wheel.name
    assert name.startswith("capmap-") and "-py3-none-manylinux_" in name and name.endswith("_x86_64.whl")
    shown = subprocess.run(
        [sys.executable, "-m", "auditwheel", "show", str(wheel)], capture_output=True, text=True, check=False
    )
    assert shown.returncode == 0, shown.stderr
    tag = name.rsplit("-", 1)[1].removesuffix(".whl")
    assert f'"{tag}"' in shown.stdout.replace("\n", " "), shown.stdout
    with zipfile.ZipFile(wheel) as archive:
        (binary_name,) = [n for n in archive.namelist() if n.endswith(".data/scripts/capmap")]
        archive.extract(binary_name, tmp_path)
    binary = tmp_path / binary_name
    binary.chmod(0o755)
    linked = subprocess.run(["ldd", str(binary)], capture_output=True, text=True, check=True).stdout
    names = {line.split()[0].rsplit("/", 1)[-1] for line in linked.splitlines() if line.strip()}
    assert names - {LOADER} <= ALLOWED, linked
    print(f"{name}: {wheel.stat().st_size / 1e6:.1f} MB")


def test_the_mask_hides_the_debian_libraries() -> None:
    """The control of the next test: under the mask, loading libfmt fails."""
    probe = (
        "import ctypes, sys\ntry:\n    ctypes.CDLL('libfmt.so.9')\nexcept OSError as e:\n    sys.exit(str(e))"
    )
    done = subprocess.run(masked([sys.executable, "-c", probe]), capture_output=True, text=True, check=False)
    assert done.returncode != 0 and "libfmt.so.9" in done.stderr, done.stderr


def test_the_installed_binary_renders_diffs_and_tracks_history_without_them(
    venv: Path, tmp_path: Path
) -> None:
    surveys = REPO / "surveys" / "kornia"
    version = user_run(venv, "--version", cwd=tmp_path)
    assert version.returncode == 0 and version.stdout.startswith("capmap "), version.stderr
    page = tmp_path / "page.html"
    done = user_run(venv, "render", surveys / "snapshot.json", "--html", page, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "warp_perspective" in page.read_text()
    older = surveys / "torch-2.9.1" / "snapshot.json"
    done = user_run(venv, "diff", older, surveys / "snapshot.json", "--format", "md", cwd=tmp_path)
    assert done.returncode in (0, 1) and "torch" in done.stdout, done.stderr
    done = user_run(
        venv, "history", older, surveys / "snapshot.json", "--out", tmp_path / "history", cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert "2.9.1" in (tmp_path / "history" / "history.md").read_text()


def test_a_user_venv_surveys_the_quick_tier_with_its_own_python(
    wheel: Path, venv: Path, tmp_path: Path
) -> None:
    # Nothing else on PATH could run the workers: the only Python with torch is the venv's.
    if Path("/usr/bin/python3").exists():
        system = subprocess.run(["/usr/bin/python3", "-c", "import torch"], capture_output=True, check=False)
        assert system.returncode != 0, "/usr/bin/python3 has torch: the test would not show which Python ran"
    pip(venv, "torch==2.13.0")
    # The bundled registry without its library says which extra brings it, before any work.
    done = user_run(venv, "run", "--store", tmp_path / "none.db", cwd=tmp_path, hidden=HIDDEN_FROM_RUNS)
    assert done.returncode == 2, done.stderr
    assert "pip install 'capmap[kornia]'" in done.stderr, done.stderr
    assert not (tmp_path / "none.db").exists()
    pip(venv, f"capmap[kornia] @ file://{wheel}")
    # A path whose exporter is missing: one line naming the extra, exit 2, nothing stored.
    done = user_run(
        venv,
        "run",
        "--paths",
        "eager,onnx",
        "--store",
        tmp_path / "none.db",
        cwd=tmp_path,
        hidden=HIDDEN_FROM_RUNS,
    )
    assert done.returncode == 2, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("capmap:")]
    assert len(lines) == 1 and "pip install 'capmap[onnx]'" in lines[0], done.stderr
    assert not (tmp_path / "none.db").exists()
    pip(venv, f"capmap[onnx] @ file://{wheel}")
    out = tmp_path / "results"
    done = user_run(
        venv,
        "run",
        "--jobs",
        "2",
        "--store",
        out / "results.db",
        "--out",
        out,
        cwd=tmp_path,
        hidden=HIDDEN_FROM_RUNS,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    snapshot = json.loads((out / "snapshot.json").read_text())
    assert snapshot["header"]["complete"] is True
    assert snapshot["header"]["library"]["name"] == "kornia"
    assert 30 <= len(snapshot["cases"]) <= 60
    assert (out / "page.html").exists()
    ok = sum(c["paths"]["onnx"]["page_status"] in ("ok", "ok-breaks") for c in snapshot["cases"])
    assert ok >= len(snapshot["cases"]) // 2


def test_nothing_of_the_checkout_is_on_the_venv_paths(venv: Path) -> None:
    done = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import capmap, sys; print(capmap.__file__); print(sys.path)"],
        capture_output=True, text=True, env=clean_env(venv), cwd="/", check=True,
    )  # fmt: skip
    location = done.stdout.splitlines()[0]
    assert location.startswith(str(venv)), location
    assert str(REPO) not in done.stdout
    assert shutil.which("capmap", path=clean_env(venv)["PATH"]) == str(venv / "bin" / "capmap")

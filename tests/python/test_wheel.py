"""capmap as a user installs it: the wheel scripts/build_wheel.sh builds from the sdist, in a fresh
venv with nothing of this checkout on its paths. Its binary links nothing but glibc, so it runs
where Debian's fmt, re2 and toml++ cannot be found; with torch and the extras installed in that
venv, `capmap run` finds the venv's Python for its workers by itself. The wheel, the venv and the
survey in it are shared fixtures (user_install.py)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

from capmap_testing import REPO
from user_install import ALLOWED, LOADER, UserSurvey, clean_env, masked, user_run


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


def test_a_user_venv_surveys_the_quick_tier_with_its_own_python(user_survey: UserSurvey) -> None:
    # Nothing else on PATH could run the workers: the only Python with torch is the venv's.
    if Path("/usr/bin/python3").exists():
        system = subprocess.run(["/usr/bin/python3", "-c", "import torch"], capture_output=True, check=False)
        assert system.returncode != 0, "/usr/bin/python3 has torch: the test would not show which Python ran"
    # The bundled registry without its library says which extra brings it, before any work.
    done = user_survey.without_kornia
    assert done.returncode == 2, done.stderr
    assert "pip install 'capmap[kornia]'" in done.stderr, done.stderr
    # A path whose exporter is missing: one line naming the extra, exit 2, nothing stored.
    done = user_survey.without_onnx
    assert done.returncode == 2, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("capmap:")]
    assert len(lines) == 1 and "pip install 'capmap[onnx]'" in lines[0], done.stderr
    assert not user_survey.refused_store.exists()
    done, out = user_survey.survey, user_survey.out
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

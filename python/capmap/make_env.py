"""Makes a side environment for `capmap run --python`: a virtual environment with its own
torch, exporters and library, from a pin list, where capmap's worker package is linked in.

    python -m capmap.make_env ENVS/torch-2.9.1 torch==2.9.1 onnxscript==0.5.7 kornia==0.9.0

The environment's own packages never touch the interpreter that runs this command. At the end
it prints the install time and the disk the environment takes, and writes both, with the pins
and the versions that were installed, to `DIR/capmap-env.json`.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import capmap

# What the worker needs beside torch and the library: the ONNX paths import these three.
WORKER_PACKAGES = ("numpy", "onnx", "onnxruntime", "onnxscript")
REPORTED_PACKAGES = ("torch", "onnx", "onnxruntime", "onnxscript", "onnx-ir", "numpy")


class EnvError(Exception):
    """Something the user can fix; printed as one line."""


def _pin_name(pin: str) -> str:
    for mark in ("==", ">=", "<=", "~=", "!=", "<", ">", "[", "@", " "):
        pin = pin.split(mark, 1)[0]
    return pin.strip().lower().replace("_", "-")


def _folder_bytes(folder: Path) -> int:
    total = 0
    for root, _dirs, files in os.walk(folder):
        for name in files:
            path = Path(root) / name
            if not path.is_symlink():
                total += path.stat().st_size
    return total


def _run(argv: list[str], what: str) -> None:
    done = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if done.returncode != 0:
        tail = [line for line in done.stdout.splitlines() if line.strip()][-1:]
        detail = tail[0].strip() if tail else f"exit {done.returncode}"
        raise EnvError(f"{what} failed: {detail}")


def _env_python(folder: Path) -> Path:
    return folder / "bin" / "python"


def _site_packages(python: Path) -> Path:
    done = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    )
    return Path(done.stdout.strip())


def _installed_versions(python: Path) -> dict[str, str | None]:
    code = (
        "import importlib.metadata as m, json, sys\n"
        "out = {}\n"
        "for name in sys.argv[1:]:\n"
        "    try: out[name] = m.version(name)\n"
        "    except m.PackageNotFoundError: out[name] = None\n"
        "print(json.dumps(out))\n"
    )
    done = subprocess.run(
        [str(python), "-c", code, *REPORTED_PACKAGES], capture_output=True, text=True, check=True
    )
    found: dict[str, str | None] = json.loads(done.stdout)
    return found


def link_worker_package(folder: Path, python: Path) -> Path:
    """Makes this capmap's Python package importable in the environment through a link, so
    the worker there is always the engine's own, edits and reinstalls included. Only the
    package is linked: the folder holding it may hold another torch."""
    source = Path(capmap.__file__).resolve().parent
    holder = folder / "capmap-worker"
    holder.mkdir(exist_ok=True)
    link = holder / "capmap"
    if link.is_symlink() or link.exists():
        link.unlink()
    link.symlink_to(source, target_is_directory=True)
    (_site_packages(python) / "capmap-worker.pth").write_text(f"{holder}\n")
    return source


def make_env(
    folder: Path, pins: list[str], *, system_site_packages: bool, installer: str
) -> dict[str, object]:
    if not pins and not system_site_packages:
        raise EnvError("no pins: name at least torch and the library, e.g. torch==2.9.1 kornia")
    names = {_pin_name(pin) for pin in pins}
    if not system_site_packages and "torch" not in names:
        raise EnvError("the pins name no torch: an environment of its own needs one (torch==X)")
    if folder.exists() and any(folder.iterdir()) and not _env_python(folder).exists():
        raise EnvError(f"{folder}: exists and is not a virtual environment; choose another folder")
    uv = shutil.which("uv") if installer in ("auto", "uv") else None
    if installer == "uv" and uv is None:
        raise EnvError("--installer uv: uv is not on PATH (pip install uv)")

    started = time.monotonic()
    if not _env_python(folder).exists():
        argv = (
            [uv, "venv", "--python", sys.executable, str(folder)]
            if uv
            else [sys.executable, "-m", "venv", str(folder)]
        )
        if system_site_packages:
            argv.append("--system-site-packages")
        _run(argv, f"creating {folder}")
    python = _env_python(folder)
    # The worker's own needs come unpinned beside the pins, which decide their versions.
    extra = [name for name in WORKER_PACKAGES if name not in names and not system_site_packages]
    if pins or extra:
        if uv:
            argv = [uv, "pip", "install", "--python", str(python), *pins, *extra]
        else:
            argv = [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
            argv += [*pins, *extra]
        _run(argv, f"installing {' '.join(pins + extra)}")
    worker_source = link_worker_package(folder, python)
    seconds = time.monotonic() - started
    facts: dict[str, object] = {
        "python": str(python),
        "pins": pins,
        "system_site_packages": system_site_packages,
        "installed": _installed_versions(python),
        "install_seconds": round(seconds, 1),
        "disk_bytes": _folder_bytes(folder),
        "capmap": capmap.__version__,
        "capmap_package": str(worker_source),
    }
    (folder / "capmap-env.json").write_text(json.dumps(facts, indent=2) + "\n")
    return facts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m capmap.make_env",
        description="Make a virtual environment for `capmap run --python DIR/bin/python`.",
    )
    parser.add_argument("folder", type=Path, help="where the environment goes")
    parser.add_argument("pins", nargs="*", help="requirements, e.g. torch==2.9.1 kornia==0.9.0")
    parser.add_argument(
        "--system-site-packages",
        action="store_true",
        help="see this interpreter's packages; pins then only replace what they name",
    )
    parser.add_argument(
        "--installer",
        choices=("auto", "uv", "pip"),
        default="auto",
        help="uv when on PATH (auto), else pip",
    )
    args = parser.parse_args(argv)
    try:
        facts = make_env(
            args.folder.absolute(),
            args.pins,
            system_site_packages=args.system_site_packages,
            installer=args.installer,
        )
    except EnvError as error:
        print(f"capmap make_env: {error}", file=sys.stderr)
        return 2
    installed = facts["installed"]
    assert isinstance(installed, dict)
    listed = ", ".join(f"{name} {version}" for name, version in installed.items() if version)
    gib = int(facts["disk_bytes"]) / 2**30  # type: ignore[call-overload]
    print(f"capmap make_env: {args.folder} ready in {facts['install_seconds']} s, {gib:.1f} GiB: {listed}")
    print(f"  run with: capmap run --python {facts['python']} ...")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""What a run was measured on: library revision, package versions, device and CPU.

Everything here avoids importing the packages it describes (their metadata is enough), so the
worker can describe itself without paying for imports or running anything that computes.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import platform
import subprocess
import sys
from pathlib import Path
from typing import Any


def package_version(name: str) -> str | None:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def versions(packages: list[str]) -> dict[str, str | None]:
    """The versions of `packages` (the capture paths declare them: `catalog.versioned_packages`)
    and of Python."""
    # A package a path declares but this environment lacks is left out rather than recorded as
    # missing: its path cannot run here, so it decides none of the run's results, and the run key
    # of an environment without it stays what it was before the path existed.
    found: dict[str, str | None] = {}
    for name in packages:
        version = package_version(name)
        if version is not None or name == "torch":
            found[name] = version
    found["python"] = platform.python_version()
    return found


def _git(folder: Path, *args: str) -> str | None:
    """git's output, or None when git fails or is missing."""
    try:
        done = subprocess.run(
            ["git", "-C", str(folder), *args],
            capture_output=True,
            text=True,
            timeout=20,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def git_revision(folder: Path) -> str | None:
    """`git describe --always --dirty` when `folder` is tracked source of a git checkout.

    A package installed into an ignored folder of some checkout (a virtual environment inside a
    project) is not part of that checkout, so it gets no revision from it.
    """
    if not folder.is_dir() or _git(folder, "rev-parse", "--show-toplevel") is None:
        return None
    if _git(folder, "check-ignore", "-q", ".") is not None:
        return None
    return _git(folder, "describe", "--always", "--dirty")


def _source_folder(name: str, fallback: Path | None) -> Path | None:
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        spec = None
    if spec is not None and spec.origin and spec.origin not in ("built-in", "frozen"):
        return Path(spec.origin).resolve().parent
    return fallback


def library_info(declared: dict[str, str], registry_file: Path | None) -> dict[str, str]:
    """name, version, revision, source_url, docs_url of the library a registry probes.

    `declared` comes from the registry's `library(...)` call. A library that is not an
    installed package (the bundled example) is versioned by the tree its registry lives in.
    """
    registry_folder = registry_file.parent if registry_file else None
    name = declared.get("name") or (registry_file.stem if registry_file else "unknown")
    module = sys.modules.get(name)
    version = package_version(name) or str(getattr(module, "__version__", "") or "")
    folder = _source_folder(name, registry_folder)
    revision = (git_revision(folder) if folder is not None else None) or version or "unknown"
    return {
        "name": name,
        "version": version or revision,
        "revision": revision,
        "source_url": declared.get("source_url", ""),
        "docs_url": declared.get("docs_url", ""),
    }


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip() in ("model name", "Model", "Hardware"):
                    return value.strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


# The settings that choose the kernels a float is computed with: torch's ISA, MKL's code path,
# oneDNN's ISA (the thread count is recorded apart). Recorded when set, so a reader knows what was emulated.
KERNEL_SETTINGS = (
    "ATEN_CPU_CAPABILITY",
    "MKL_ENABLE_INSTRUCTIONS",
    "MKL_CBWR",
    "ONEDNN_MAX_CPU_ISA",
    "DNNL_MAX_CPU_ISA",
)


# Variables torch reads only for its own CI: with `CI` set, inductor asserts on an implicit
# fallback that has a decomposition and functorch turns custom-op aliasing warnings into errors.
# GitHub Actions sets `CI=true` in every job, and a survey there must give the cells a laptop
# gives, so the worker withholds them from torch (`withhold_ci_variables`) and says so.
TORCH_CI_VARIABLES = ("CI",)
_withheld: list[str] = []


def withhold_ci_variables() -> list[str]:
    """Removes `TORCH_CI_VARIABLES` from this process's environment; must run before torch is
    imported (torch reads them at import). Returns the names it removed."""
    for name in TORCH_CI_VARIABLES:
        if os.environ.pop(name, None) is not None and name not in _withheld:
            _withheld.append(name)
    return list(_withheld)


def cpu_vendor() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip() == "vendor_id":
                    return value.strip()
    except OSError:
        pass
    return ""


def machine() -> dict[str, Any]:
    """What the floats of a run were computed on: provenance for the snapshot's header, never
    part of a case's identity (its digest reads how a value was made, not its bytes)."""
    found: dict[str, Any] = {"cpu": cpu_model(), "vendor": cpu_vendor()}
    torch = sys.modules.get("torch")
    if torch is not None:
        found["torch_isa"] = torch.backends.cpu.get_cpu_capability()
        found["blas"] = "MKL" if torch.backends.mkl.is_available() else "other"
        found["onednn"] = bool(torch.backends.mkldnn.is_available())
        found["threads"] = torch.get_num_threads()
    found["settings"] = {k: os.environ[k] for k in KERNEL_SETTINGS if k in os.environ}
    if _withheld:
        found["withheld"] = list(_withheld)
    return found


def cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def describe(
    declared_library: dict[str, str], registry_file: Path | None, packages: list[str]
) -> dict[str, Any]:
    """The environment part of the worker's hello message."""
    return {
        "library": library_info(declared_library, registry_file),
        "versions": versions(packages),
        "device": "cpu",
        "cpu": cpu_model(),
        "cores": cores(),
        "machine": machine(),
    }

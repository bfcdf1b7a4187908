#!/usr/bin/env bash
# Builds the C++ unit tests and runs every test: C++ (ctest), Python and browser (pytest), and
# the checks of the sources: ruff, mypy, clang-format, the include graph, clang-tidy.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
jobs=$(nproc)

# The real Slurm test (tests/python/slurm_cluster.py) starts Debian's munged, slurmctld and slurmd.
missing=()
for p in slurm-wlm munge; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  echo "test: installing Debian packages: ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "${missing[@]}"
fi

# The build's flags live in CMakePresets.json ("tests").
cmake --preset tests >/dev/null
cmake --build --preset tests -j "$jobs"
ctest --preset tests -j "$jobs"

$PY -m ruff check python tests bench scripts
$PY -m ruff format --check python tests bench scripts
$PY -m mypy
clang-format --dry-run --Werror src/*.cc src/*/*.cc src/*/*.h tests/cpp/*/*.cc tests/cpp/*/*.h
# The rooms of src/ include and link only the rooms below them (docs/architecture.md, "Code map").
$PY scripts/include_graph.py
# clang-tidy's checks (.clang-tidy) with the tests build's compile commands; any finding fails.
# Each file costs seconds (the json, fmt and CLI11 headers are parsed for each), so by default it
# checks the rooms below the commands and the pages: 71 of 100 files, 3 to 4 CPU-minutes (under
# 3 minutes on 2 cores). CAPMAP_TIDY=all checks every file, src/main.cc, src/cli/ and
# src/render/ too: about 7 CPU-minutes, CLI11 being the dearest header.
tidy_files=(src/{common,store,selection,snapshot,run,merge,diff,history}/*.cc)
if [ "${CAPMAP_TIDY:-}" = all ]; then tidy_files=(src/*.cc src/*/*.cc); fi
# Its "N warnings generated" lines count what it left out (library headers, other checks).
printf '%s\n' "${tidy_files[@]}" |
  xargs -P "$jobs" -n 4 clang-tidy -p build/tests --quiet 2> >(grep -v 'warnings generated' >&2)
export CAPMAP_BIN="$PWD/build/tests/capmap"
export PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}"
# The executorch path's tests run ExecuTorch in an environment of its own that sees this torch
# (about 400 MB, half a minute): ExecuTorch's releases pin their torch.
et_env=build/envs/executorch
if [ ! -x "$et_env/bin/python" ]; then
  $PY -m capmap.make_env --system-site-packages "$et_env" executorch==1.5.1 torch==2.13.0
fi
export CAPMAP_EXECUTORCH_PYTHON="$PWD/$et_env/bin/python"
$PY -m pytest -q -p no:cacheprovider "$@"

#!/usr/bin/env bash
# Builds the C++ unit tests and runs every test: C++ (ctest), Python and browser (pytest).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
jobs=$(nproc)

# The build's flags live in CMakePresets.json ("tests").
cmake --preset tests >/dev/null
cmake --build --preset tests -j "$jobs"
ctest --preset tests -j "$jobs"

$PY -m ruff check python tests bench scripts
$PY -m ruff format --check python tests bench scripts
$PY -m mypy
clang-format --dry-run --Werror src/*.cc src/*/*.cc src/*/*.h tests/cpp/*/*.cc tests/cpp/*/*.h
# The rooms of src/ include and link only the rooms below them (docs/DESIGN.md, "Layout").
$PY scripts/include_graph.py
export CAPMAP_BIN="$PWD/build/tests/capmap"
export PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}"
$PY -m pytest -q -p no:cacheprovider "$@"

#!/usr/bin/env bash
# Builds the C++ unit tests and runs every test: C++ (ctest), Python and browser (pytest).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
jobs=$(nproc)

cmake -S . -B build/tests -G Ninja -DCAPMAP_TESTS=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build/tests -j "$jobs"
ctest --test-dir build/tests --output-on-failure -j "$jobs"

$PY -m ruff check python tests bench scripts
$PY -m ruff format --check python tests bench scripts
clang-format --dry-run --Werror src/*.cc src/*/*.cc src/*/*.h tests/cpp/*/*.cc tests/cpp/*/*.h
export CAPMAP_BIN="$PWD/build/tests/capmap"
export PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}"
$PY -m pytest -q -p no:cacheprovider "$@"

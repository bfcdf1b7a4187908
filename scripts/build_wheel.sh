#!/usr/bin/env bash
# Builds capmap's sdist, then from that sdist the wheel, and gives the wheel the manylinux tag
# its binary meets (auditwheel checks that it links nothing but glibc). Prints the wheel's path.
#   scripts/build_wheel.sh [OUT]     (OUT: default dist/)
# A wheel already built from the same sources is kept, in OUT and in ~/.cache/capmap/wheels: the
# sources' digest names it.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
out=${1:-dist}
mkdir -p "$out"

# What the sdist holds (pyproject.toml's sdist.exclude leaves the rest out).
digest=$(git ls-files -z CMakeLists.txt CMakePresets.json cmake src rules python pyproject.toml README.md |
  xargs -0 sha256sum | sha256sum | cut -c1-16)
stamp="$out/.sources-$digest"
wheel=$(ls "$out"/capmap-*-manylinux_*.whl 2>/dev/null | head -n 1 || true)
if [ -n "$wheel" ] && [ -e "$stamp" ]; then
  echo "$wheel"
  exit 0
fi

# Every clone of the same sources shares one build, kept outside the clone by their digest.
kept_root=$HOME/.cache/capmap/wheels
kept=$kept_root/$digest
rm -rf "$out"/capmap-* "$out"/.sources-* "$out/raw"
if [ -e "$kept/.complete" ]; then
  cp "$kept"/capmap-* "$out"/
  touch "$stamp"
  ls "$out"/capmap-*-manylinux_*.whl
  exit 0
fi

# ccache keys the objects by their preprocessed sources: the sdist is unpacked into a new
# folder each time, and paths below it are hashed relative to it. It keys them by the compiler's
# name and the locale too: scripts/test.sh builds with CMake's default c++ under LANG=C.UTF-8 and
# the same flags, so with these the tests build finds this build's objects (scikit-build-core
# would otherwise name Python's own compiler, g++).
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if command -v ccache >/dev/null; then
  export TMPDIR=$work CMAKE_CXX_COMPILER_LAUNCHER=ccache CCACHE_DIR=$HOME/.cache/capmap/ccache \
    CCACHE_BASEDIR=$work CCACHE_NOHASHDIR=1 CXX=${CXX:-c++} LANG=C.UTF-8
  unset LC_ALL LC_CTYPE LC_MESSAGES
fi
echo "build_wheel: building the sdist and, from it, the wheel (compiles the C++ engine)" >&2
# --no-isolation: the build requirements (scikit-build-core, cmake, ninja) come from
# requirements-build.txt (scripts/setup.sh), so that no build reaches for the network.
$PY -m build --no-isolation --outdir "$out/raw" . >&2
$PY -m auditwheel repair --only-plat --plat auto \
  -w "$out" "$out"/raw/capmap-*.whl >&2
mv "$out"/raw/capmap-*.tar.gz "$out"/
rm -rf "$out/raw"
touch "$stamp"
mkdir -p "$work/kept" "$kept_root"
cp "$out"/capmap-* "$work/kept/" && touch "$work/kept/.complete"
rm -rf "$kept" && mv -T "$work/kept" "$kept" || true
# The five newest builds stay.
ls -dt "$kept_root"/*/ | tail -n +6 | xargs -r rm -rf
ls "$out"/capmap-*-manylinux_*.whl

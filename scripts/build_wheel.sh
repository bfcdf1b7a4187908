#!/usr/bin/env bash
# Builds capmap's sdist, then from that sdist the wheel, and gives the wheel the manylinux tag
# its binary meets (auditwheel checks that it links nothing but glibc). Prints the wheel's path.
#   scripts/build_wheel.sh [OUT]     (OUT: default dist/)
# A wheel already built from the same sources is kept: the sources' digest is written beside it.
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

rm -rf "$out"/capmap-* "$out"/.sources-* "$out/raw"
echo "build_wheel: building the sdist and, from it, the wheel (compiles the C++ engine)" >&2
# --no-isolation: the build requirements (scikit-build-core, cmake, ninja) come from
# requirements-dev.txt, so that no build reaches for the network.
$PY -m build --no-isolation --outdir "$out/raw" . >&2
$PY -m auditwheel repair --only-plat --plat auto \
  -w "$out" "$out"/raw/capmap-*.whl >&2
mv "$out"/raw/capmap-*.tar.gz "$out"/
rm -rf "$out/raw"
touch "$stamp"
ls "$out"/capmap-*-manylinux_*.whl

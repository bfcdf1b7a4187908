#!/usr/bin/env bash
# Installs what capmap needs on a fresh Debian 12 machine and installs capmap itself:
#   scripts/setup.sh          what a survey needs: the compiler, the C++ libraries, torch and the
#                             surveyed libraries, the wheel's build tools
#   scripts/setup.sh --test   that and what the tests and checks add: Chromium, clang-format,
#                             clang-tidy, ccache, GoogleTest, pytest, the linters, the Sphinx themes
set -euo pipefail
cd "$(dirname "$0")/.."

testing=0
case "${1:-}" in
  "") ;;
  --test) testing=1 ;;
  *) echo "setup: unknown argument '$1' (usage: scripts/setup.sh [--test])" >&2; exit 2 ;;
esac

apt_packages=(g++ make pkg-config nlohmann-json3-dev libsqlite3-dev libre2-dev libfmt-dev
  libcli11-dev libtomlplusplus-dev zlib1g-dev sqlite3)
requirements=requirements.txt
if [ "$testing" = 1 ]; then
  apt_packages+=(libgtest-dev chromium chromium-driver clang-format clang-tidy ccache)
  requirements=requirements-dev.txt
fi
missing=()
for p in "${apt_packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "${missing[@]}"
fi

PY=${PYTHON:-python3}
echo "setup: installing Python packages ($requirements)"
$PY -m pip install -q --root-user-action=ignore -c constraints.txt -r "$requirements" \
  -r requirements-build.txt cmake ninja
echo "setup: building capmap's wheel (compiles the C++ engine: a few minutes on 2 cores) and installing it"
wheel=$(PYTHON=$PY scripts/build_wheel.sh)
$PY -m pip install -q --root-user-action=ignore --no-deps --force-reinstall "$wheel"
echo "setup: done — $(command -v capmap)"

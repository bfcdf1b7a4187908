#!/usr/bin/env bash
# Installs everything capmap needs on a fresh Debian 12 machine and installs capmap itself.
set -euo pipefail
cd "$(dirname "$0")/.."

apt_packages=(g++ make pkg-config nlohmann-json3-dev libsqlite3-dev libre2-dev libfmt-dev
  libcli11-dev libgtest-dev libtomlplusplus-dev zlib1g-dev sqlite3 chromium
  chromium-driver clang-format clang-tidy ccache)
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
echo "setup: installing Python packages"
$PY -m pip install -q --root-user-action=ignore -c constraints.txt -r requirements-dev.txt cmake ninja
echo "setup: building capmap's wheel (compiles the C++ engine: a few minutes on 2 cores) and installing it"
wheel=$(PYTHON=$PY scripts/build_wheel.sh)
$PY -m pip install -q --root-user-action=ignore --no-deps --force-reinstall "$wheel"
echo "setup: done — $(command -v capmap)"

#!/usr/bin/env bash
# Builds the C++ unit tests and runs every test: C++ (ctest), Python and browser (pytest), and
# the checks of the sources: ruff, mypy, clang-format, the include graph, clang-tidy.
#
# A run's verdict depends on the sources and the pinned versions alone (docs/architecture.md,
# "Invariants"):
#   - it starts from a stated environment: none of the caller's variables (CI, CAPMAP_*,
#     TORCHINDUCTOR_*, ATEN_CPU_CAPABILITY, MKL_*, OMP_*, SOURCE_DATE_EPOCH, PYTHONPATH...) reach
#     the tests or the workers they start, and no installed pytest plugin loads;
#   - its temporary files, compiled kernels included, live in a folder of its own, removed at the
#     end: nothing an earlier or a killed run left in /tmp is read;
#   - what it keeps between runs is keyed by its inputs and never changes a result: ccache's
#     objects, the wheel of a source digest, the ExecuTorch environment of a set of pins
#     (under ~/.cache/capmap).
# Extra arguments go to pytest (e.g. `scripts/test.sh -k wheel`).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${CAPMAP_TEST_STATED:-}" != 1 ]; then
  py=$(command -v "${PYTHON:-python3}")
  # The interpreter itself, not a shim that reads the caller's environment to pick one.
  py=$("$py" -c 'import sys; print(sys.executable)')
  exec env -i CAPMAP_TEST_STATED=1 PYTHON="$py" HOME="$HOME" LANG=C.UTF-8 TERM=dumb \
    TIDY="${CAPMAP_TIDY:-}" \
    PATH="$(dirname "$py"):/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
    bash "$0" "$@"
fi
unset CAPMAP_TEST_STATED
PY=$PYTHON
tidy=$TIDY
unset PYTHON TIDY
jobs=$(nproc)
started=$(date +%s)
phase_start=$started
phase() { # prints how long the phase that just ended took
  local now
  now=$(date +%s)
  echo "test: $1 took $((now - phase_start)) s"
  phase_start=$now
}

# The run's own temporary folder (0755: munged refuses a socket below a private folder).
run_tmp=$(mktemp -d /tmp/capmap-test.XXXXXX)
chmod 755 "$run_tmp"
trap 'rm -rf "$run_tmp"' EXIT
export TMPDIR=$run_tmp
cache=$HOME/.cache/capmap
mkdir -p "$cache"

# The real Slurm test (tests/python/slurm_cluster.py) starts Debian's munged, slurmctld and slurmd.
missing=()
for p in slurm-wlm munge ccache; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  echo "test: installing Debian packages: ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "${missing[@]}"
fi

# The build's flags live in CMakePresets.json ("tests"). ccache keys objects by their
# preprocessed source and flags, with paths taken relative to this checkout, so a fresh clone
# of unchanged sources compiles nothing.
export CCACHE_DIR=$cache/ccache CCACHE_BASEDIR=$PWD CCACHE_NOHASHDIR=1 CCACHE_MAXSIZE=5G
cmake --preset tests -DCMAKE_CXX_COMPILER_LAUNCHER=ccache >/dev/null
cmake --build --preset tests -j "$jobs"
phase "the C++ build"
ctest --preset tests -j "$jobs"
phase "ctest"

$PY -m ruff check python tests bench scripts
$PY -m ruff format --check python tests bench scripts
$PY -m mypy
clang-format --dry-run --Werror src/*.cc src/*/*.cc src/*/*.h tests/cpp/*/*.cc tests/cpp/*/*.h
# The rooms of src/ include and link only the rooms below them (docs/architecture.md, "Code map").
$PY scripts/include_graph.py
# clang-tidy's checks (.clang-tidy) with the tests build's compile commands; any finding fails.
# By default it checks the rooms below the commands and the pages (the json, fmt and CLI11
# headers make each file cost seconds); CAPMAP_TIDY=all before the command checks every file.
# A file that passed before with the same preprocessed source, checks and clang-tidy is not
# checked again (scripts/cached_tidy.py).
tidy_files=(src/{common,store,selection,snapshot,run,merge,diff,history}/*.cc)
if [ "$tidy" = all ]; then tidy_files=(src/*.cc src/*/*.cc); fi
$PY scripts/cached_tidy.py build/tests "${tidy_files[@]}" --jobs "$jobs" --cache "$cache/tidy"
phase "ruff, mypy, clang-format, the include graph and clang-tidy"

export CAPMAP_BIN="$PWD/build/tests/capmap"
export PYTHONPATH="$PWD/python"
# The executorch path's tests run ExecuTorch in an environment of its own that sees this torch:
# ExecuTorch's releases pin their torch. It is made once per set of pins (constraints.txt holds
# its packages' versions too) and kept; each run links this checkout's worker package into it.
et_pins=(executorch==1.5.1 torch==2.13.0)
et_key=$(printf '%s\n' "$PY" "${et_pins[@]}" | cat - constraints.txt | sha256sum | cut -c1-16)
et_env=$cache/envs/executorch-$et_key
mkdir -p "$cache/envs"
(
  flock 9
  # A folder without the stamp is what a killed run left: made again from nothing.
  [ -e "$et_env/.complete" ] || rm -rf "$et_env"
  PIP_CONSTRAINT=$PWD/constraints.txt \
    $PY -m capmap.make_env --system-site-packages "$et_env" "${et_pins[@]}" >/dev/null
  touch "$et_env/.complete"
) 9>"$cache/envs/executorch.lock"
export CAPMAP_EXECUTORCH_PYTHON="$et_env/bin/python"
phase "the ExecuTorch environment"

# No installed plugin loads: the tests see the pytest they declare and nothing more. Two
# pytest-xdist workers share the tests by group (tests/conftest.py): most tests wait on a
# process of their own much of the time.
export PYTEST_DISABLE_PLUGIN_AUTOLOAD=1
status=0
# Every test's seconds go to build/pytest-times.xml too: the table after pytest's own says which
# modules the minutes went to (scripts/test_times.py).
$PY -m pytest -q -p no:cacheprovider -p xdist.plugin -n "$jobs" --dist loadgroup --durations=25 \
  --junitxml=build/pytest-times.xml "$@" || status=$?
phase "pytest"
[ -f build/pytest-times.xml ] && { $PY scripts/test_times.py build/pytest-times.xml || true; }
echo "test: $(( ($(date +%s) - started) / 60 )) min $(( ($(date +%s) - started) % 60 )) s in all"
exit $status

#!/usr/bin/env bash
# Installs what is missing, then configures and builds sift into build/
# (or $SIFT_BUILD_DIR). Extra arguments go to CMake.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${SIFT_BUILD_DIR:-$root/build}"

"$root/scripts/bootstrap.sh"

# ccache hits from another checkout or CI clone: paths relative to the
# parent folder, and the folder itself not hashed.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$(dirname "$root")}"
export CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"

# The Python extension is built for the venv of scripts/venv.sh when it
# exists (scripts/test.sh makes it); without it, CMake says why the Python
# package's tests are skipped.
python_args=()
venv_python="${SIFT_VENV:-$HOME/.cache/sift/venv-py312}/bin/python"
if [ -x "$venv_python" ]; then
  python_args=(-DSIFT_PYTHON_EXECUTABLE="$venv_python")
fi

cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  "${python_args[@]}" "$@"
# Two jobs fit the 2-core machines this project is built on.
cmake --build "$build" -j "${SIFT_JOBS:-$(nproc)}"

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

cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@"
# Two jobs fit the 2-core machines this project is built on.
cmake --build "$build" -j "${SIFT_JOBS:-$(nproc)}"

#!/usr/bin/env bash
# Installs what is missing, then configures and builds sift into build/
# (or $SIFT_BUILD_DIR). Extra arguments go to CMake.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${SIFT_BUILD_DIR:-$root/build}"

"$root/scripts/bootstrap.sh"

cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@"
# Two jobs fit the 2-core machines this project is built on.
cmake --build "$build" -j "${SIFT_JOBS:-$(nproc)}"

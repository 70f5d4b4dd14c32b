#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test through ctest: the lit
# suite (test/) and the format check. Ends with ctest's summary line.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${SIFT_BUILD_DIR:-$root/build}"

"$root/scripts/build.sh"
ctest --test-dir "$build" --output-on-failure -j "${SIFT_JOBS:-$(nproc)}"

#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test through ctest: the lit
# suite (test/), the conformance checks, the unit tests, the Python package's
# tests (pytest, in the venv of scripts/venv.sh) and the format check.
#
# Then a second stage (skipped with SIFT_TEST_SANITIZE=0): the same tests
# built with AddressSanitizer and UBSan (scripts/sanitize.sh, build-san/),
# failing on any sanitizer report, and a two-minute libFuzzer run over the
# pipeline (scripts/fuzz.sh, SIFT_FUZZ_SECONDS to change it). On the 2-core
# machines this project runs on, the second stage adds about 15 minutes with
# a warm ccache (see README.md).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${SIFT_BUILD_DIR:-$root/build}"

# The Python 3.12 venv (NumPy, PyTorch, JAX, nanobind, pytest) that the
# Python package is built for and tested with; created once, then reused
# (SIFT_TEST_PYTHON=0 skips it). Without it the Python package's tests are
# reported skipped, with the reason.
if [ "${SIFT_TEST_PYTHON:-1}" != 0 ]; then
  "$root/scripts/venv.sh" ||
    echo "test.sh: no Python venv (scripts/venv.sh failed); the Python" \
      "package's tests will be skipped" >&2
fi

"$root/scripts/build.sh"
ctest --test-dir "$build" --output-on-failure -j "${SIFT_JOBS:-$(nproc)}"

if [ "${SIFT_TEST_SANITIZE:-1}" != 0 ]; then
  echo
  echo "=== stage 2: sanitizers (scripts/sanitize.sh) ==="
  "$root/scripts/sanitize.sh"
  echo
  echo "=== stage 2: fuzzing (scripts/fuzz.sh ${SIFT_FUZZ_SECONDS:-120}) ==="
  SIFT_FUZZ_NO_BUILD=1 "$root/scripts/fuzz.sh" "${SIFT_FUZZ_SECONDS:-120}"
fi

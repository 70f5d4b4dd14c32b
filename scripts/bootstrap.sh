#!/usr/bin/env bash
# Installs what sift needs and is missing: LLVM/MLIR 22 from Debian (dylibs,
# headers, mlir-tblgen, lit, FileCheck), a C++ toolchain, CMake, Ninja,
# ccache, GoogleTest, clang-format and valgrind (lit's `valgrind` feature).
# Packages already present are left alone; apt-get runs only when something
# is missing.
# --sanitize also installs clang-22 with its sanitizer runtimes and libFuzzer,
# for scripts/sanitize.sh and scripts/fuzz.sh.
set -euo pipefail

packages=(
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools
  libomp-22-dev g++ cmake ninja-build ccache libgtest-dev clang-format python3
  valgrind
)
if [ "${1:-}" = "--sanitize" ]; then
  packages+=(clang-22 libclang-rt-22-dev libfuzzer-22-dev)
fi

# NumPy (from PyPI) for the Python references and the conformance runner.
# Debian's own Python refuses plain pip installs (PEP 668); then retry with
# --break-system-packages (numpy then lives in /usr/local, apart from apt's).
ensure_numpy() {
  if python3 -c "import numpy" 2>/dev/null; then
    return
  fi
  echo "bootstrap: installing numpy (pip)"
  if ! python3 -m pip --version >/dev/null 2>&1; then
    local sudo_pip=""
    [ "$(id -u)" -ne 0 ] && sudo_pip="sudo"
    DEBIAN_FRONTEND=noninteractive $sudo_pip apt-get install -y -q \
      --no-install-recommends python3-pip
  fi
  python3 -m pip install --quiet numpy 2>/dev/null ||
    python3 -m pip install --quiet --break-system-packages numpy
}

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "bootstrap: all packages present"
  ensure_numpy
  exit 0
fi

echo "bootstrap: installing ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
ensure_numpy

#!/usr/bin/env bash
# Installs what sift needs and is missing: LLVM/MLIR 22 from Debian (dylibs,
# headers, mlir-tblgen, lit, FileCheck), a C++ toolchain, CMake, Ninja,
# ccache, GoogleTest and clang-format. Packages already present are left
# alone; apt-get runs only when something is missing.
set -euo pipefail

packages=(
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools
  g++ cmake ninja-build ccache libgtest-dev clang-format python3
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "bootstrap: all packages present"
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

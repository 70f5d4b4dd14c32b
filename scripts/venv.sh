#!/usr/bin/env bash
# Creates (once) and reuses the Python 3.12 virtual environment of the
# benchmark's peers and of the Python package: NumPy, Matplotlib, PyTorch and
# JAX 0.12 (CPU), nanobind 3, scikit-build-core and pytest (the extension's
# build and tests), all from PyPI; only the missing ones are installed. It
# lives outside the repository, in $SIFT_VENV (default
# ~/.cache/sift/venv-py312), so every clone on the machine shares it. A run
# with everything installed only checks the imports (about a second).
#
#   scripts/venv.sh                  # create or complete it, say where it is
#   scripts/venv.sh --print-python   # the same, then print only its python
set -euo pipefail

venv="${SIFT_VENV:-$HOME/.cache/sift/venv-py312}"
print_python=0
for arg in "$@"; do
  case "$arg" in
    --print-python) print_python=1 ;;
    -h | --help)
      sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *)
      echo "venv.sh: unknown argument '$arg'" >&2
      exit 2
      ;;
  esac
done

# Progress goes to stderr so that --print-python leaves one line on stdout.
say() { echo "venv.sh: $*" >&2; }

# JAX 0.12 needs Python >= 3.11; the peers are pinned to 3.12.
find_python312() {
  local pyenv_python=/root/.pyenv/versions/3.12.1/bin/python3.12
  if [ -x "$pyenv_python" ]; then
    echo "$pyenv_python"
  elif command -v python3.12 >/dev/null 2>&1; then
    command -v python3.12
  fi
}

python="$venv/bin/python"
# Finding the packages is enough to know they are installed (importing
# torch and jax takes seconds); jax must be a 0.12 and nanobind a 3.x.
# Prints the pip requirements that are missing, one a line.
missing_check='
import importlib.metadata as meta, importlib.util as util
wanted = [("numpy", "numpy", ""), ("matplotlib", "matplotlib", ""),
          ("torch", "torch", ""), ("jax==0.12.*", "jax", "0.12."),
          ("jaxlib==0.12.*", "jaxlib", "0.12."),
          ("nanobind==3.*", "nanobind", "3."),
          ("scikit-build-core", "scikit_build_core", ""),
          ("pytest", "pytest", "")]
for req, module, prefix in wanted:
    if util.find_spec(module) is None or (
            prefix and not meta.version(module).startswith(prefix)):
        print(req)'

if [ ! -x "$python" ]; then
  base="$(find_python312)"
  if [ -z "$base" ]; then
    say "no Python 3.12 found (looked for /root/.pyenv/versions/3.12.1 and" \
      "python3.12 on PATH); install one, e.g. 'pyenv install 3.12', then" \
      "run this again"
    exit 1
  fi
  say "creating $venv with $base"
  mkdir -p "$(dirname "$venv")"
  "$base" -m venv "$venv"
fi

mapfile -t missing < <("$python" -c "$missing_check" 2>/dev/null || echo numpy)
if [ ${#missing[@]} -eq 0 ]; then
  say "packages already installed in $venv"
else
  say "installing ${missing[*]} into $venv (PyTorch with its CUDA wheels" \
    "is about 5 GB; this takes a while)"
  "$python" -m pip install --quiet --upgrade pip >&2
  "$python" -m pip install --quiet "${missing[@]}" >&2
  say "installed: $("$python" -c 'import numpy, torch, jax, matplotlib
print("numpy", numpy.__version__, "| torch", torch.__version__,
      "| jax", jax.__version__, "| matplotlib", matplotlib.__version__)')"
fi

if [ "$print_python" = 1 ]; then
  echo "$python"
else
  say "python: $python"
fi

#!/usr/bin/env bash
# Fails when a C++ source of the project is not clang-formatted (LLVM style,
# .clang-format at the top). TableGen files are not checked.
set -euo pipefail
cd "$(dirname "$0")/.."
fmt=$(command -v clang-format-22 || command -v clang-format || true)
if [ -z "$fmt" ]; then
  echo "clang-format not found (scripts/bootstrap.sh installs it)" >&2
  exit 1
fi
files=$(git ls-files --cached --others --exclude-standard '*.cpp' '*.h' '*.c')
bad=0
for f in $files; do
  if ! diff -q <("$fmt" --style=file "$f") "$f" >/dev/null; then
    echo "not formatted: $f (run: $fmt -i $f)"
    bad=1
  fi
done
[ $bad -eq 0 ] && echo "clang-format: $(echo "$files" | wc -w) files formatted"
exit $bad

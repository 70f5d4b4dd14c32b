#!/usr/bin/env bash
# Installs what is missing, builds, and runs the main example: the seed's
# dynamic sampler (examples/sampler.mlir) through tensor-opt, showing the IR
# before and after the passes that exist today, and what is still
# data-dependent in it.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${SIFT_BUILD_DIR:-$root/build}"

log="$(mktemp)"
"$root/scripts/build.sh" > "$log" 2>&1 || {
  cat "$log"
  exit 1
}
rm -f "$log"
opt="$build/bin/tensor-opt"
example="$root/examples/sampler.mlir"

echo "=== examples/sampler.mlir as written (parsed and verified) ==="
"$opt" "$example"

echo
echo "=== after --canonicalize --cse ==="
"$opt" "$example" --canonicalize --cse

echo
echo "=== --sift-report-bounds: static upper bounds derived so far ==="
"$opt" "$example" --sift-report-bounds -o /dev/null 2>&1 | grep -E "remark|warning" | sed "s|$root/||"

echo
echo "=== --sift-verify-static: what still has a data-dependent shape ==="
if "$opt" "$example" --sift-verify-static -o /dev/null 2> "$build/verify-static.txt"; then
  echo "fully static"
else
  grep -c "error:" "$build/verify-static.txt" | sed 's/$/ findings:/'
  grep "error:" "$build/verify-static.txt" | sed "s|$root/||"
fi

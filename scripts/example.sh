#!/usr/bin/env bash
# Installs what is missing, builds, and runs the main example: the seed's
# dynamic sampler (examples/sampler.mlir) through tensor-opt, showing what is
# data-dependent in it, the bounds --sift-staticize derives, and the fully
# static program it produces; then batches it with --sift-batch and runs the
# batched static sampler on the CPU (32 rows of N = 10000) in one call,
# printing its results and time per call.
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
echo "=== what is data-dependent in it (--sift-verify-static) ==="
"$opt" "$example" --sift-verify-static -o /dev/null 2>&1 | grep "error:" |
  sed "s|$root/||" || true

echo
echo "=== --sift-staticize: bounds found, values rewritten, syncs removed ==="
"$opt" "$example" --sift-staticize=report=1 -o /dev/null 2>&1 |
  grep "remark:" | sed "s|$root/||"

echo
echo "=== after --sift-staticize --canonicalize --cse (fully static) ==="
"$opt" "$example" --sift-staticize --canonicalize --cse --sift-verify-static
echo "--sift-verify-static: no data-dependent shape or host sync left"

echo
echo "=== --sift-staticize --sift-batch: the same function over a batch of 32 ==="
batched="$build/sampler_batch32.mlir"
"$opt" "$example" --sift-staticize --sift-batch="func=sampler size=32" \
  --canonicalize --cse -o "$batched"
grep "func.func @sampler_batched" "$batched" | sed 's/^ *//; s/ {$//'
echo "(each argument gained a leading dimension of 32: one seed per row; row i"
echo " of every result equals @sampler called on row i)"

echo
echo "=== running it on the CPU: 32 rows of N = 10000 items, one call ==="
echo "(16 features per item, labels 1 with probability 0.3, K = 1000 per row;"
echo " results: features, count, labels, count, each per row; a row's lanes"
echo " past its count are padding, their values unspecified)"
inputs="$build/sampler-inputs"
python3 "$root/scripts/make_sampler_inputs.py" "$inputs" 32 10000
"$build/bin/tensor-run" "$batched" -e sampler_batched \
  --input "$inputs/features.npy" --input "$inputs/labels.npy" \
  --input "$inputs/seeds.npy" --repeat 20

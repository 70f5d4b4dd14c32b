#!/usr/bin/env bash
# Installs what is missing, builds, and runs the main example: the seed's
# dynamic sampler (examples/sampler.mlir) through tensor-opt, showing what is
# data-dependent in it, the bounds --sift-staticize derives, and the fully
# static program it produces; then runs the batched static sampler on the CPU
# (32 rows of N = 10000) and prints its results and time per call.
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
echo "=== running the sampler on the CPU: a batch of 32 rows of N = 10000 ==="
echo "(examples/sampler_batched.mlir: the static sampler over the whole batch;"
echo " 16 features per item, labels 1 with probability 0.3, K = 1000 per row)"
inputs="$build/sampler-inputs"
python3 "$root/scripts/make_sampler_inputs.py" "$inputs" 32 10000
"$build/bin/tensor-run" "$root/examples/sampler_batched.mlir" \
  --input "$inputs/features.npy" --input "$inputs/labels.npy" \
  --arg seed=7 --repeat 20

#!/usr/bin/env bash
# sift's checks on a machine with an NVIDIA GPU, from the bundle that
# scripts/device-bundle.sh made (.device/: tensor-run, tensor-opt and their
# libraries; no LLVM needed there). Each step writes its log into LOGDIR:
#
#   scripts/device-check.sh LOGDIR [smoke] [sampler] [conformance] [bench]
#                                 [variants] [differential]
#
#   smoke        the driver, and an elementwise kernel against the CPU's
#   sampler      examples/sampler.mlir made static and batched (B = 32,
#                N = 1e4 and 1e6), run with --target cuda and --target cpu:
#                every result must be bit-identical
#   variants     the batched sampler (B = 32, N = 1e4 and 1e6) compiled
#                with each of SIFT_GPU_VARIANTS (";"-separated option
#                sets of sift-gpu-pipeline, the first "" for the defaults;
#                default: how radix sorts split across blocks),
#                alternated over two rounds (A/B); every variant's results
#                must be bit-identical to the CPU's
#   conformance  test/Conformance with --target cuda (every case on the GPU)
#   differential random programs of test/Conformance/differential.py, each
#                static and batched function with --target cuda against
#                the per-sample calls on the CPU (SIFT_DIFF_COUNT programs
#                from seed 1001, default 100; not among the default steps)
#   bench        bench/gpu/run.py: sift next to PyTorch and JAX on the GPU
#
# Steps run in the order given, each under its own time limit
# (SIFT_STEP_TIMEOUT, default 300 s); the exit status is the number of
# steps that failed.
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
LOG="${1:?usage: device-check.sh LOGDIR [steps]}"
shift
STEPS=("$@")
((${#STEPS[@]})) || STEPS=(smoke sampler conformance bench)
LIMIT="${SIFT_STEP_TIMEOUT:-300}"
mkdir -p "$LOG"
B="$ROOT/.device"
[[ -x "$B/bin/tensor-run" ]] || "$B/unpack.sh" || exit 1
# shellcheck disable=SC1091
source "$B/env.sh"
TR="$B/bin/tensor-run"
TO="$B/bin/tensor-opt"
WORK="$(mktemp -d)"
JOBS="$(($(nproc) > 2 ? $(nproc) - 2 : 1))"

same() { # a.npy b.npy...: bit-identical pairs (dir1 dir2)
  python3 - "$@" <<'EOF'
import glob, os, sys
import numpy as np
a, b = sys.argv[1], sys.argv[2]
files = sorted(glob.glob(os.path.join(a, "result*.npy")))
bad = 0
for f in files:
    x, y = np.load(f), np.load(os.path.join(b, os.path.basename(f)))
    ok = x.dtype == y.dtype and x.shape == y.shape and (
        np.array_equal(x, y, equal_nan=x.dtype.kind == "f"))
    print("  %s %s %s %s" % (os.path.basename(f), x.dtype, x.shape,
                             "identical" if ok else "DIFFERS"))
    bad += not ok
sys.exit(1 if bad or not files else 0)
EOF
}

batched_sampler() { # N out.mlir inputs/: examples/sampler.mlir's program
  # (bench/sampler, K = N / 10) made static and batched (B = 32), and its
  # inputs (features, labels, seeds); kept for the next step that asks
  local n="$1" out="$2" in="$3"
  [[ -s "$out" && -s "$in/seeds.npy" ]] && return 0
  python3 -c "import sys; sys.path.insert(0, '$ROOT/bench/sampler'); \
from sift_sampler import auto_sampler_mlir; print(auto_sampler_mlir($n, $((n / 10))))" \
    >"$out.dyn.mlir" &&
    "$TO" "$out.dyn.mlir" --sift-staticize --sift-batch="func=sampler size=32" \
      --canonicalize --cse -o "$out" &&
    { python3 - "$in" "$n" 2>/dev/null <<'EOF' ||
import os, sys
import numpy as np  # fast; without NumPy, the standard library's script
out, n = sys.argv[1], int(sys.argv[2])
rng = np.random.default_rng(0)
os.makedirs(out, exist_ok=True)
np.save(os.path.join(out, "features.npy"), rng.random((32, n, 16), np.float32))
np.save(os.path.join(out, "labels.npy"), (rng.random((32, n)) < 0.3).astype(np.int64))
np.save(os.path.join(out, "seeds.npy"), rng.integers(0, 2**62, 32, np.int64))
EOF
      python3 "$ROOT/scripts/make_sampler_inputs.py" "$in" 32 "$n" >/dev/null; }
}

step_smoke() {
  nvidia-smi -L
  "$TR" "$ROOT/test/GPU/cuda-device.mlir" --target cuda --random --seed 3 \
    --output-dir "$WORK/smoke.cuda" --repeat 5 || return 1
  "$TR" "$ROOT/test/GPU/cuda-device.mlir" --random --seed 3 \
    --output-dir "$WORK/smoke.cpu" >/dev/null || return 1
  python3 -c "import numpy as n,sys; a=n.load('$WORK/smoke.cuda/result0.npy'); b=n.load('$WORK/smoke.cpu/result0.npy'); print('max abs diff', abs(a-b).max()); sys.exit(0 if n.allclose(a,b,rtol=1e-5) else 1)"
}

step_sampler() {
  local rc=0
  for n in ${SIFT_SAMPLER_SIZES:-10000 1000000}; do
    local k=$((n / 10)) mlir="$WORK/sampler$n.mlir" in="$WORK/in$n"
    batched_sampler "$n" "$mlir" "$in" || { rc=1; continue; }
    local args=(-e sampler_batched --input "$in/features.npy"
      --input "$in/labels.npy" --input "$in/seeds.npy")
    echo "== B = 32, N = $n, K = $k: --target cuda"
    "$TR" "$mlir" "${args[@]}" --target cuda --repeat 5 --warmup 1 \
      --output-dir "$WORK/s$n.cuda" | grep -v "^  \[" || { rc=1; continue; }
    echo "== --target cuda, time per kernel (SIFT_CUDA_PROFILE=kernels)"
    SIFT_CUDA_PROFILE=kernels "$TR" "$mlir" "${args[@]}" --target cuda \
      --repeat 3 2>&1 | grep -v "^  \[\|^result\|^@" | head -40
    echo "== --target cuda, one block per row (split-blocks=0)"
    "$TR" "$mlir" "${args[@]}" --target cuda --repeat 5 --warmup 1 \
      --pipeline "builtin.module(sift-gpu-pipeline{chip=sm_80 format=isa split-blocks=0})" |
      grep "time per call" || rc=1
    echo "== --target cpu"
    "$TR" "$mlir" "${args[@]}" --repeat 5 --output-dir "$WORK/s$n.cpu" |
      grep "time per call" || { rc=1; continue; }
    same "$WORK/s$n.cuda" "$WORK/s$n.cpu" || rc=1
  done
  return $rc
}

step_variants() {
  local rc=0 variants
  IFS=";" read -r -a variants <<<"${SIFT_GPU_VARIANTS:-;sort-digit-bits=8;sort-split-min=0}"
  ((${#variants[@]})) || variants=("")
  for n in ${SIFT_SAMPLER_SIZES:-10000 1000000}; do
    local mlir="$WORK/sampler$n.mlir" in="$WORK/in$n"
    batched_sampler "$n" "$mlir" "$in" || { rc=1; continue; }
    local args=(-e sampler_batched --input "$in/features.npy"
      --input "$in/labels.npy" --input "$in/seeds.npy")
    "$TR" "$mlir" "${args[@]}" --output-dir "$WORK/v$n.cpu" >/dev/null || rc=1
    for round in 1 2; do
      local i=0
      for v in "${variants[@]}"; do
        echo "== N = $n, round $round, ${v:-defaults}"
        # At N = 1e6 a call copies 2 GB each way: fewer calls.
        "$TR" "$mlir" "${args[@]}" --target cuda --warmup 2 \
          --repeat "$((n >= 1000000 ? 5 : 10))" \
          --pipeline "builtin.module(sift-gpu-pipeline{chip=sm_80 format=isa $v})" \
          --output-dir "$WORK/v$n.$i" | grep "time per call" || rc=1
        if ((round == 1)); then
          local same_out
          same_out="$(same "$WORK/v$n.$i" "$WORK/v$n.cpu")" ||
            { rc=1; echo "$same_out"; }
          echo "  $(grep -c identical <<<"$same_out") results bit-identical to the CPU's"
        fi
        i=$((i + 1))
      done
    done
  done
  return $rc
}

step_conformance() {
  python3 "$ROOT/test/Conformance/run_conformance.py" --tensor-run "$TR" \
    --tensor-opt "$TO" --target cuda -j "$JOBS"
}

step_differential() {
  python3 "$ROOT/test/Conformance/differential.py" --tensor-run "$TR" \
    --tensor-opt "$TO" --gpu-target cuda --seed 1001 \
    --count "${SIFT_DIFF_COUNT:-100}" -j "$JOBS" --out "$LOG/differential-bugs"
}

step_bench() {
  SIFT_COMMIT="$(cat "$ROOT/.device/COMMIT" 2>/dev/null)" \
    python3 "$ROOT/bench/gpu/run.py" --tensor-run "$TR" --out "$LOG" ${SIFT_BENCH_ARGS:-}
}

failed=0
for s in "${STEPS[@]}"; do
  echo "=== $s ($(date +%T))"
  start=$SECONDS
  PYTHONUNBUFFERED=1 timeout "$LIMIT" bash -c "set -o pipefail; $(declare -f same batched_sampler step_$s); \
    SIFT_GPU_VARIANTS='${SIFT_GPU_VARIANTS:-}'; SIFT_SAMPLER_SIZES='${SIFT_SAMPLER_SIZES:-}'; SIFT_DIFF_COUNT='${SIFT_DIFF_COUNT:-}'; TR='$TR' TO='$TO' ROOT='$ROOT' WORK='$WORK' JOBS='$JOBS' LOG='$LOG' SIFT_BENCH_ARGS='${SIFT_BENCH_ARGS:-}'; \
    step_$s" >"$LOG/$s.log" 2>&1
  rc=$?
  echo "    rc $rc, $((SECONDS - start)) s; last lines:"
  tail -n 6 "$LOG/$s.log" | cut -c1-300 | sed 's/^/    /'
  ((rc)) && failed=$((failed + 1))
done
rm -rf "$WORK"
exit $failed

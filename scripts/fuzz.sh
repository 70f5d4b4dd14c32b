#!/usr/bin/env bash
# Fuzzes sift's pipeline with libFuzzer: parse, verify, --sift-staticize,
# --sift-batch (first function, size 2), --sift-cpu-pipeline
# (tools/sift-fuzz), built with ASan and UBSan by scripts/sanitize.sh into
# build-san/ (or $SIFT_SAN_BUILD_DIR).
#
#   scripts/fuzz.sh [SECONDS] [libFuzzer flags...]     (default 120 s)
#
# First the inputs of tools/sift-fuzz/regressions/ (once each), then the fuzz
# run. Seeds: the .mlir files of test/ and examples/, split at `// -----`,
# plus the shared/ seeds and reproducers beside the checkout when there are
# any (not the known crashes of shared/repro/crash/, and nothing of shared/ is
# committed). The corpus grows in build-san/fuzz/corpus/ from run to run
# ($SIFT_FUZZ_DIR instead of build-san/fuzz/). Exits non-zero on a crash, a
# sanitizer report, a leak, a timeout or an out-of-memory; the input that did
# it is kept in build-san/fuzz/artifacts/ and the command to reproduce it is
# printed. SIFT_FUZZ_NO_BUILD=1 skips the build. For a long run that goes on
# past findings: scripts/fuzz.sh 3600 -fork=1 -ignore_crashes=1
# -ignore_timeouts=1 -ignore_ooms=1
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${SIFT_SAN_BUILD_DIR:-$root/build-san}"
seconds="${1:-120}"
shift || true

if [ "${SIFT_FUZZ_NO_BUILD:-0}" != 1 ]; then
  "$root/scripts/sanitize.sh" --build
fi
fuzzer="$build/bin/sift-fuzz"
work="${SIFT_FUZZ_DIR:-$build/fuzz}"
seeds="$work/seeds"
corpus="$work/corpus"
artifacts="$work/artifacts"
rm -rf "$seeds"
mkdir -p "$seeds" "$corpus" "$artifacts"

# One seed per `// -----` section: most test files are several inputs.
shared="$(cd "$root/.." && pwd)/shared"
python3 - "$seeds" "$root/test" "$root/examples" "$shared/seeds" \
  "$shared/repro" <<'PY'
import hashlib, os, re, sys
out, dirs = sys.argv[1], sys.argv[2:]
n = 0
for d in dirs:
    for base, subdirs, files in os.walk(d):
        # Known crashes would stop the run at once (they are fixed or
        # listed in docs/UpstreamBugs.md; the lead tracks them).
        subdirs[:] = [s for s in subdirs if s != "crash"]
        for f in files:
            if not f.endswith(".mlir"):
                continue
            text = open(os.path.join(base, f), errors="replace").read()
            for part in re.split(r"^// -----\s*$", text, flags=re.M):
                data = part.encode()
                name = hashlib.sha1(data).hexdigest()
                with open(os.path.join(out, name), "wb") as fh:
                    fh.write(data)
                n += 1
print(f"fuzz: {n} seeds from {len(dirs)} folders")
PY

symbolizer="$(command -v llvm-symbolizer-22 ||
  echo /usr/lib/llvm-22/bin/llvm-symbolizer)"
export ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=1:external_symbolizer_path=$symbolizer"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:external_symbolizer_path=$symbolizer:suppressions=$root/scripts/ubsan.supp"
export OMP_NUM_THREADS=1

# Inputs that once crashed the target run first, once each (no fuzzing):
# sift's own fixed bugs and upstream crashes the target must skip.
echo "fuzz: the regression inputs of tools/sift-fuzz/regressions/"
"$fuzzer" "$root"/tools/sift-fuzz/regressions/*.mlir

echo "fuzz: $seconds s; corpus $corpus; findings go to $artifacts/"
status=0
"$fuzzer" "$corpus" "$seeds" \
  -dict="$root/tools/sift-fuzz/mlir.dict" \
  -max_total_time="$seconds" -timeout=30 -rss_limit_mb=4096 \
  -max_len=32768 -artifact_prefix="$artifacts/" -print_final_stats=1 \
  "$@" || status=$?

if [ $status -ne 0 ]; then
  echo "fuzz: FAILED (exit $status); findings:"
  ls -t "$artifacts" | head -20 | sed "s|^|  $artifacts/|"
  echo "reproduce: OMP_NUM_THREADS=1 $fuzzer <file>"
fi
exit $status

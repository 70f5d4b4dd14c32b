#!/usr/bin/env bash
# Packs build/bin/tensor-run and tensor-opt with the shared libraries they
# load (LLVM, MLIR, sift's runtime) into one folder, for a machine that has
# a GPU but no LLVM 22 (the device machines of issue 13):
#
#   scripts/device-bundle.sh [DIR]        # default .device/ (git-ignored)
#   # there:  .device/unpack.sh            # then .device/bin/tensor-run ...
#
# Each library is zstd-compressed (LLVM and MLIR are 250 MB, 50 MB packed).
# glibc, libstdc++ and libgcc are the other machine's (the same or newer:
# this machine's are the oldest we build on). libz3 and libxml2, which
# libLLVM links for its SMT solver and Windows manifests and which sift never
# calls, are replaced by stubs that abort if called: libz3 alone is 23 MB.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="${1:-$ROOT/.device}"
BUILD="${SIFT_BUILD_DIR:-$ROOT/build}"
mkdir -p "$OUT/pack"
grep -qxF '/.device/' "$ROOT/.git/info/exclude" 2>/dev/null ||
  { mkdir -p "$ROOT/.git/info"; echo '/.device/' >>"$ROOT/.git/info/exclude"; }

libs() { ldd "$@" | awk '$3 ~ /^\// {print $3}' | sort -u; }
SYSTEM='/(libc|libm|libstdc\+\+|libgcc_s|ld-linux-x86-64)\.so'
STUBBED='/(libz3|libxml2|libicu[a-z]*)\.so'

pack() { # file -> pack/<name>.zst, unless already packed from the same file
  local f="$1" z="$OUT/pack/$(basename "$1").zst"
  [[ -f "$z" && ! "$f" -nt "$z" ]] || zstd -q -f -19 -T0 "$f" -o "$z"
}

for b in tensor-run tensor-opt; do pack "$BUILD/bin/$b"; done
for l in $(libs "$BUILD/bin/tensor-run" "$BUILD/bin/tensor-opt"); do
  [[ "$l" =~ $SYSTEM || "$l" =~ $STUBBED ]] && continue
  # The name the binaries ask for (the soname), not the file's.
  real="$(readlink -f "$l")"
  z="$OUT/pack/$(basename "$l").zst"
  [[ -f "$z" && ! "$real" -nt "$z" ]] || zstd -q -f -19 -T0 "$real" -o "$z"
done

# The OpenMP runtime that the CPU target's code loads (SIFT_OPENMP_RUNTIME).
pack "$(readlink -f /usr/lib/llvm-22/lib/libomp.so)"

# Stubs: every function the libraries import from libz3 / libxml2, with the
# symbol versions they ask for.
stub() { # soname, pattern of its symbols
  local so="$1" pat="$2" dir="$OUT/stub-$1"
  mkdir -p "$dir"
  objdump -T "$(readlink -f /usr/lib/llvm-22/lib/libLLVM.so.22.1)" |
    awk -v pat="$pat" '/\*UND\*/ && $NF ~ "^" pat {print $(NF-1), $NF}' |
    sort -u >"$dir/syms"
  { echo '#include <stdlib.h>'
    awk '{print "void " $2 "(void) { abort(); }"}' "$dir/syms"; } >"$dir/stub.c"
  # One version node per symbol version asked for (libxml2's LIBXML2_2.4.30
  # ...); unversioned ("Base") symbols stay unversioned.
  awk '$1 ~ /^\(/ {v = substr($1, 2, length($1) - 2); s[v] = s[v] " " $2 ";"}
       END {for (v in s) print v " {" s[v] " };"}' "$dir/syms" >"$dir/versions"
  local vs=()
  [[ -s "$dir/versions" ]] && vs=(-Wl,--version-script="$dir/versions")
  cc -shared -fPIC -o "$OUT/pack/$so" -Wl,-soname,"$so" "${vs[@]}" "$dir/stub.c"
  rm -rf "$dir"
}
stub libz3.so.4 Z3_
stub libxml2.so.2 xml

# zstd itself, for a machine without it (with the libraries it loads).
mkdir -p "$OUT/pack/zstd"
cp /usr/bin/zstd "$OUT/pack/zstd/"
for l in $(libs /usr/bin/zstd); do
  [[ "$l" =~ $SYSTEM ]] || cp -L "$l" "$OUT/pack/zstd/"
done

# The commit the binaries were built from ("-dirty": with local changes).
git -C "$ROOT" describe --always --dirty >"$OUT/COMMIT" 2>/dev/null || true

cat >"$OUT/unpack.sh" <<'EOF'
#!/usr/bin/env bash
# Unpacks the bundle next to this script: bin/ and lib/ (run bin/tensor-run).
set -euo pipefail
D="$(cd "$(dirname "$0")" && pwd)"
mkdir -p "$D/bin" "$D/lib"
zstd() { LD_LIBRARY_PATH="$D/pack/zstd" "$D/pack/zstd/zstd" "$@"; }
for z in "$D"/pack/*.zst; do
  n="$(basename "$z" .zst)"
  case "$n" in tensor-*) t="$D/bin/$n" ;; *) t="$D/lib/$n" ;; esac
  zstd -q -d -f "$z" -o "$t"
done
cp "$D"/pack/*.so.* "$D/lib/" 2>/dev/null || true
chmod +x "$D"/bin/*
# The binaries look for libsift_runtime.so in ../lib (their RUNPATH); the
# LLVM libraries through LD_LIBRARY_PATH.
{ echo "export LD_LIBRARY_PATH=$D/lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
  echo "export SIFT_OPENMP_RUNTIME=$D/lib/libomp.so.5"; } >"$D/env.sh"
EOF
chmod +x "$OUT/unpack.sh"
du -sh "$OUT/pack"

// REQUIRES: ptxas
// Every kernel of unique and randperm (sift-kernels-unique.mlir: the sort,
// compact, cumsum, scatter and argsort kernels they are made of, and their
// elementwise kernels: the run flags, the gathers of values and counts,
// the groups; and randperm's philox_words kernel) assembled by the toolkit's ptxas for sm_80 and
// sm_90 with no spills. allow-host-code: unique's result size is the
// compaction's count, which the host reads to slice the results.
//
// RUN: tensor-opt %S/sift-kernels-unique.mlir --symbol-privatize=exclude=unique_all,unique_2d_f32,unique_long_inverse,randperm_dynamic,randperm_static --symbol-dce -o %t.in.mlir
// RUN: tensor-opt %t.in.mlir --sift-gpu-pipeline="chip=sm_90 fuse=0 allow-host-code=1" -o %t.sm90.mlir
// RUN: %extract_ptx %t.sm90 %t.sm90.mlir
// RUN: python3 %S/Inputs/ptxas_all.py %ptxas sm_90 %t.sm90 | FileCheck %s --implicit-check-not="{{[1-9][0-9]*}} bytes spill" --implicit-check-not=error
// RUN: FileCheck %s --check-prefix=PHILOX --input-file=%t.sm90/randperm_dynamic_kernel.ptx
// RUN: tensor-opt %t.in.mlir --sift-gpu-pipeline="chip=sm_80 fuse=0 allow-host-code=1" -o %t.sm80.mlir
// RUN: %extract_ptx %t.sm80 %t.sm80.mlir
// RUN: python3 %S/Inputs/ptxas_all.py %ptxas sm_80 %t.sm80 | FileCheck %s --implicit-check-not="{{[1-9][0-9]*}} bytes spill" --implicit-check-not=error

// The Philox block of a thread: 10 rounds of two 32-bit multiplies, each
// a mul.lo and a mul.hi (--sift-gpu-prepare-modules), none emulated in 64
// bits (mul.lo.s64: what LLVM made of arith.mului_extended's 64-bit
// products once it had widened the rounds' xors).
// PHILOX: .visible .entry randperm_dynamic_kernel(
// PHILOX-NOT: mul.lo.s64
// PHILOX-COUNT-20: mul.hi.u32
// PHILOX-NOT: mul.hi.u32
// PHILOX: ret;
// Philox keys (a block per thread), then the argsort kernel: the radix sort of a
// dynamic row, the bitonic sort of 16 keys.
// CHECK: == randperm_dynamic_kernel.ptx
// CHECK: 0 bytes spill stores, 0 bytes spill loads
// CHECK: used 0 barriers
// CHECK: == randperm_dynamic_kernel_{{[0-9]+}}.ptx
// CHECK: 0 bytes spill stores, 0 bytes spill loads
// CHECK: used 1 barriers, 1088 bytes smem
// CHECK: == randperm_static_kernel.ptx
// CHECK: == randperm_static_kernel_{{[0-9]+}}.ptx
// CHECK: used 1 barriers
// values only: sort, flags, compact, values.
// CHECK-COUNT-4: == unique_2d_f32_kernel
// all results: sort, flags, compact, values, cumsum, groups, counts, the
// inverse's scatter, in 5 launches (--sift-gpu-merge-launches: sort,
// flags, compact with cumsum, values with groups and counts, scatter).
// CHECK-COUNT-5: == unique_all_kernel
// CHECK-COUNT-5: == unique_long_inverse_kernel
// CHECK-NOT: ==

// REQUIRES: ptxas
// The split cumsum's kernels (cumsum-split.mlir: the segments' totals, the
// scans from them; the short rows' one launch) through the GPU pipeline,
// assembled by ptxas for sm_80 and sm_90 with no spills.
//
// RUN: tensor-opt %S/cumsum-split.mlir --sift-gpu-pipeline="chip=sm_90" -o %t.sm90.mlir
// RUN: %extract_ptx %t.sm90 %t.sm90.mlir
// RUN: python3 %S/Inputs/ptxas_all.py %ptxas sm_90 %t.sm90 > %t.sm90.txt
// RUN: FileCheck %s --implicit-check-not="{{[1-9][0-9]*}} bytes spill" --implicit-check-not=error < %t.sm90.txt
// RUN: tensor-opt %S/cumsum-split.mlir --sift-gpu-pipeline="chip=sm_80" -o %t.sm80.mlir
// RUN: %extract_ptx %t.sm80 %t.sm80.mlir
// RUN: python3 %S/Inputs/ptxas_all.py %ptxas sm_80 %t.sm80 > %t.sm80.txt
// RUN: FileCheck %s --implicit-check-not="{{[1-9][0-9]*}} bytes spill" --implicit-check-not=error < %t.sm80.txt
// RUN: cat %t.sm90/cumsum_long_kernel_0.ptx | FileCheck %s --check-prefix=SCAN

// CHECK-COUNT-2: == cumsum_long_kernel
// CHECK-COUNT-1: == cumsum_short_kernel
// CHECK-NOT: ==

// The scanning launch: the totals before the segment added in order (f32
// loads and round-to-nearest adds), a warp scan of shuffles, a barrier
// between the warps.
// SCAN: .visible .entry cumsum_long_kernel(
// SCAN: ld.global.b32 [[T:%r[0-9]+]]
// SCAN-NEXT: add.rn.f32 %r{{[0-9]+}}, %r{{[0-9]+}}, [[T]];
// SCAN: shfl.sync.up
// SCAN: bar.sync

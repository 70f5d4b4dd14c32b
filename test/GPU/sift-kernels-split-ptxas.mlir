// REQUIRES: ptxas
// The kernels of rows split across blocks (sift-kernels-split.mlir)
// through the GPU pipeline, assembled by ptxas for sm_80 and sm_90 with no
// spills; global atomics in the PTX (red/atom.global.add).
//
// RUN: tensor-opt %S/sift-kernels-split.mlir --symbol-privatize=exclude=count_long,compact_long,topk_long --symbol-dce -o %t.in.mlir
// RUN: tensor-opt %t.in.mlir --sift-gpu-pipeline="chip=sm_90 sort-digit-bits=4" -o %t.sm90.mlir
// RUN: %extract_ptx %t.sm90 %t.sm90.mlir
// RUN: python3 %S/Inputs/ptxas_all.py %ptxas sm_90 %t.sm90 > %t.sm90.txt
// RUN: FileCheck %s --implicit-check-not="{{[1-9][0-9]*}} bytes spill" --implicit-check-not=error < %t.sm90.txt
// RUN: tensor-opt %t.in.mlir --sift-gpu-pipeline="chip=sm_80 sort-digit-bits=4" -o %t.sm80.mlir
// RUN: %extract_ptx %t.sm80 %t.sm80.mlir
// RUN: python3 %S/Inputs/ptxas_all.py %ptxas sm_80 %t.sm80 > %t.sm80.txt
// RUN: FileCheck %s --implicit-check-not="{{[1-9][0-9]*}} bytes spill" --implicit-check-not=error < %t.sm80.txt
// RUN: cat %t.sm90/count_long_kernel_0.ptx | FileCheck %s --check-prefix=COUNT
// RUN: cat %t.sm90/topk_long_kernel_2.ptx | FileCheck %s --check-prefix=DIGIT

// compact: the segments' counts, the compaction.
// CHECK-COUNT-2: == compact_long_kernel
// count: the clear, the segments.
// CHECK-COUNT-2: == count_long_kernel
// topk: the clear, 8 digits, the counts, the collection, the sort.
// CHECK-COUNT-12: == topk_long_kernel
// CHECK-NOT: ==

// COUNT: vote.sync.ballot
// COUNT: atom.global.add.u64
// DIGIT: atom.shared.add.u32
// DIGIT: atom.global.add.u32

// 8-bit digits (sort-digit-bits=8) for the split radix passes: a split
// selection, the argsort and the sort of a top-k's K, for sm_90 and sm_80,
// no spills. The scatter
// ranks a tile with 9 ballots (the lanes in the row, one per digit bit)
// in a workgroup buffer of (1 + 8 warps) x 256 bins, and the kernels that
// decide whether a pass runs reduce which digits are constant (an `or`
// over the block, one bin a thread).
// RUN: tensor-opt %S/sift-kernels-split.mlir --symbol-privatize=exclude=argsort_long,topk_big_k --symbol-dce -o %t.wide.mlir
// RUN: tensor-opt %t.wide.mlir --sift-gpu-pipeline="chip=sm_90 sort-digit-bits=8" -o %t.wide90.mlir
// RUN: %extract_ptx %t.wide90 %t.wide90.mlir
// RUN: python3 %S/Inputs/ptxas_all.py %ptxas sm_90 %t.wide90 > %t.wide90.txt
// RUN: FileCheck %s --check-prefix=WIDE --implicit-check-not="{{[1-9][0-9]*}} bytes spill" --implicit-check-not=error < %t.wide90.txt
// RUN: tensor-opt %t.wide.mlir --sift-gpu-pipeline="chip=sm_80 sort-digit-bits=8" -o %t.wide80.mlir
// RUN: %extract_ptx %t.wide80 %t.wide80.mlir
// RUN: python3 %S/Inputs/ptxas_all.py %ptxas sm_80 %t.wide80 > %t.wide80.txt
// RUN: FileCheck %s --check-prefix=WIDE --implicit-check-not="{{[1-9][0-9]*}} bytes spill" --implicit-check-not=error < %t.wide80.txt
// RUN: cat %t.wide90/argsort_long_kernel_2.ptx | FileCheck %s --check-prefix=WIDE-SCATTER
// The selection's digits: a 256-bin histogram each.
// RUN: tensor-opt %S/sift-kernels-split.mlir --symbol-privatize=exclude=topk_long --symbol-dce -o %t.sel.mlir
// RUN: tensor-opt %t.sel.mlir --sift-gpu-pipeline="chip=sm_90 sort-digit-bits=8" -o %t.sel90.mlir
// RUN: %extract_ptx %t.sel90 %t.sel90.mlir
// RUN: python3 %S/Inputs/ptxas_all.py %ptxas sm_90 %t.sel90 > %t.sel90.txt
// RUN: FileCheck %s --check-prefix=WIDE-SELECT --implicit-check-not="{{[1-9][0-9]*}} bytes spill" --implicit-check-not=error < %t.sel90.txt
// RUN: tensor-opt %t.sel.mlir --sift-gpu-pipeline="chip=sm_80 sort-digit-bits=8" -o %t.sel80.mlir
// RUN: %extract_ptx %t.sel80 %t.sel80.mlir
// RUN: python3 %S/Inputs/ptxas_all.py %ptxas sm_80 %t.sel80 > %t.sel80.txt
// RUN: FileCheck %s --check-prefix=WIDE-SELECT --implicit-check-not="{{[1-9][0-9]*}} bytes spill" --implicit-check-not=error < %t.sel80.txt

// Every digit's histogram ([4 digits][256]), a segment's histogram of a
// digit, the scatter.
// WIDE: == argsort_long_kernel_0.ptx
// WIDE: 4096 bytes smem
// WIDE: == argsort_long_kernel_1.ptx
// WIDE: 1152 bytes smem
// WIDE: == argsort_long_kernel_2.ptx
// WIDE: 9344 bytes smem
// The first digit (no walk yet: no scratch), the second.
// WIDE-SELECT: == topk_long_kernel_0.ptx
// WIDE-SELECT: 1024 bytes smem
// WIDE-SELECT: == topk_long_kernel_1.ptx
// WIDE-SELECT: 1152 bytes smem
// WIDE-SCATTER-COUNT-9: vote.sync.ballot
// WIDE-SCATTER-NOT: vote.sync.ballot

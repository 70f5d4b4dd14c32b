// REQUIRES: ptxas
// The kernels of rows split across blocks (sift-kernels-split.mlir)
// through the GPU pipeline, assembled by ptxas for sm_80 and sm_90 with no
// spills; global atomics in the PTX (red/atom.global.add).
//
// RUN: tensor-opt %S/sift-kernels-split.mlir --symbol-privatize=exclude=count_long,compact_long,topk_long --symbol-dce -o %t.in.mlir
// RUN: tensor-opt %t.in.mlir --sift-gpu-pipeline="chip=sm_90" -o %t.sm90.mlir
// RUN: %extract_ptx %t.sm90 %t.sm90.mlir
// RUN: python3 %S/Inputs/ptxas_all.py %ptxas sm_90 %t.sm90 > %t.sm90.txt
// RUN: FileCheck %s --implicit-check-not="{{[1-9][0-9]*}} bytes spill" --implicit-check-not=error < %t.sm90.txt
// RUN: tensor-opt %t.in.mlir --sift-gpu-pipeline="chip=sm_80" -o %t.sm80.mlir
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

// REQUIRES: ptxas
// Every kernel of the ops along other axes (sift-kernels-other-axis.mlir:
// the transposes and the row kernels between them) assembled by the
// toolkit's ptxas for sm_80 and sm_90 with no spills.
//
// RUN: tensor-opt %S/sift-kernels-other-axis.mlir --symbol-privatize=exclude=sort_dim0,topk_dim1,argsort_neg2 --symbol-dce -o %t.in.mlir
// RUN: tensor-opt %t.in.mlir --sift-gpu-pipeline="chip=sm_90 fuse=0" -o %t.sm90.mlir
// RUN: %extract_ptx %t.sm90 %t.sm90.mlir
// RUN: python3 %S/Inputs/ptxas_all.py %ptxas sm_90 %t.sm90 | FileCheck %s --implicit-check-not="{{[1-9][0-9]*}} bytes spill" --implicit-check-not=error
// RUN: tensor-opt %t.in.mlir --sift-gpu-pipeline="chip=sm_80 fuse=0" -o %t.sm80.mlir
// RUN: %extract_ptx %t.sm80 %t.sm80.mlir
// RUN: python3 %S/Inputs/ptxas_all.py %ptxas sm_80 %t.sm80 | FileCheck %s --implicit-check-not="{{[1-9][0-9]*}} bytes spill" --implicit-check-not=error

// Three kernels each: the transpose of the input; the row kernel (the
// bitonic sort of 40 keys; the radix sort of 3 rows of 6000 in scratch,
// with its barrier; the selection of 5 of 50); the results transposed back
// (one launch for a sort's values and indices).
// CHECK: == argsort_neg2_kernel.ptx
// CHECK: used 0 barriers
// CHECK: == argsort_neg2_kernel_{{[0-9]+}}.ptx
// CHECK: used 1 barriers
// CHECK: == argsort_neg2_kernel_{{[0-9]+}}.ptx
// CHECK: used 0 barriers
// CHECK-COUNT-3: == sort_dim0_kernel
// CHECK-COUNT-3: == topk_dim1_kernel
// CHECK-NOT: ==

// REQUIRES: ptxas
// The segmented sums of sift-kernels-cross-entropy-segments.mlir (an item
// of 10^6 rows in 123 segments, then the partials; three items of 5
// segments) assembled by ptxas for sm_80 and sm_90 with no spills.
//
// RUN: tensor-opt %S/sift-kernels-cross-entropy-segments.mlir --sift-gpu-pipeline="chip=sm_90 fuse=0 allow-host-code=1" -o %t.sm90.mlir 2>/dev/null
// RUN: %extract_ptx %t.sm90 %t.sm90.mlir
// RUN: %ptxas -v -arch=sm_90 %t.sm90/mean_million_kernel_1.ptx -o %t.a.90.cubin 2>&1 | FileCheck %s
// RUN: %ptxas -v -arch=sm_90 %t.sm90/mean_million_kernel_2.ptx -o %t.b.90.cubin 2>&1 | FileCheck %s
// RUN: %ptxas -v -arch=sm_90 %t.sm90/sum_items_kernel_4.ptx -o %t.c.90.cubin 2>&1 | FileCheck %s
// RUN: %ptxas -v -arch=sm_90 %t.sm90/sum_items_kernel_5.ptx -o %t.d.90.cubin 2>&1 | FileCheck %s
// RUN: tensor-opt %S/sift-kernels-cross-entropy-segments.mlir --sift-gpu-pipeline="chip=sm_80 fuse=0 allow-host-code=1" -o %t.sm80.mlir 2>/dev/null
// RUN: %extract_ptx %t.sm80 %t.sm80.mlir
// RUN: %ptxas -v -arch=sm_80 %t.sm80/mean_million_kernel_1.ptx -o %t.a.80.cubin 2>&1 | FileCheck %s
// RUN: %ptxas -v -arch=sm_80 %t.sm80/mean_million_kernel_2.ptx -o %t.b.80.cubin 2>&1 | FileCheck %s
// RUN: %ptxas -v -arch=sm_80 %t.sm80/sum_items_kernel_4.ptx -o %t.c.80.cubin 2>&1 | FileCheck %s

// CHECK: Compiling entry function '{{.*}}_kernel' for 'sm_{{80|90}}'
// CHECK: 0 bytes spill stores, 0 bytes spill loads

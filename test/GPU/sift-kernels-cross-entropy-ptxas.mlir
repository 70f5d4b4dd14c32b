// REQUIRES: ptxas
// sift's cross_entropy kernels (sift-kernels-cross-entropy.mlir) assembled
// by the toolkit's ptxas for sm_80 and sm_90, with no spills: the row
// kernels of 16 lanes per row (C = 10, mean), of a warp per row (C = 100,
// f16, weights, smoothing), of a block per row (C = 5000 of f64, sum over
// batch items; a dynamic C), and the items' f64 sums. The group and warp
// kernels use no barrier and no shared memory, the block ones one barrier.
//
// RUN: tensor-opt %S/sift-kernels-cross-entropy.mlir --symbol-privatize=exclude=mean_short,none_weighted_3d,sum_batched,none_dynamic --symbol-dce | tensor-opt --sift-gpu-pipeline="chip=sm_90 fuse=0 allow-host-code=1" -o %t.sm90.mlir 2>/dev/null
// RUN: %extract_ptx %t.sm90 %t.sm90.mlir
// RUN: %ptxas -v -arch=sm_90 %t.sm90/mean_short_kernel_0.ptx -o %t.mean_short_kernel_0.90.cubin 2>&1 | FileCheck %s --check-prefix=GROUP
// RUN: %ptxas -v -arch=sm_90 %t.sm90/mean_short_kernel_1.ptx -o %t.mean_short_kernel_1.90.cubin 2>&1 | FileCheck %s --check-prefix=GROUP
// RUN: %ptxas -v -arch=sm_90 %t.sm90/none_weighted_3d_kernel_2.ptx -o %t.none_weighted_3d_kernel_2.90.cubin 2>&1 | FileCheck %s --check-prefix=GROUP
// RUN: %ptxas -v -arch=sm_90 %t.sm90/sum_batched_kernel_4.ptx -o %t.sum_batched_kernel_4.90.cubin 2>&1 | FileCheck %s --check-prefix=BLOCK
// RUN: %ptxas -v -arch=sm_90 %t.sm90/none_dynamic_kernel_6.ptx -o %t.none_dynamic_kernel_6.90.cubin 2>&1 | FileCheck %s --check-prefix=BLOCK
// RUN: tensor-opt %S/sift-kernels-cross-entropy.mlir --symbol-privatize=exclude=mean_short,none_weighted_3d,sum_batched,none_dynamic --symbol-dce | tensor-opt --sift-gpu-pipeline="chip=sm_80 fuse=0 allow-host-code=1" -o %t.sm80.mlir 2>/dev/null
// RUN: %extract_ptx %t.sm80 %t.sm80.mlir
// RUN: %ptxas -v -arch=sm_80 %t.sm80/mean_short_kernel_0.ptx -o %t.mean_short_kernel_0.80.cubin 2>&1 | FileCheck %s --check-prefix=GROUP
// RUN: %ptxas -v -arch=sm_80 %t.sm80/mean_short_kernel_1.ptx -o %t.mean_short_kernel_1.80.cubin 2>&1 | FileCheck %s --check-prefix=GROUP
// RUN: %ptxas -v -arch=sm_80 %t.sm80/none_weighted_3d_kernel_2.ptx -o %t.none_weighted_3d_kernel_2.80.cubin 2>&1 | FileCheck %s --check-prefix=GROUP
// RUN: %ptxas -v -arch=sm_80 %t.sm80/sum_batched_kernel_4.ptx -o %t.sum_batched_kernel_4.80.cubin 2>&1 | FileCheck %s --check-prefix=BLOCK
// RUN: %ptxas -v -arch=sm_80 %t.sm80/none_dynamic_kernel_6.ptx -o %t.none_dynamic_kernel_6.80.cubin 2>&1 | FileCheck %s --check-prefix=BLOCK

// GROUP: Compiling entry function '{{.*}}_kernel' for 'sm_{{80|90}}'
// GROUP: 0 bytes spill stores, 0 bytes spill loads
// GROUP: Used {{[0-9]+}} registers, used 0 barriers
// GROUP-NOT: smem

// BLOCK: Compiling entry function '{{.*}}_kernel' for 'sm_{{80|90}}'
// BLOCK: 0 bytes spill stores, 0 bytes spill loads
// BLOCK: used 1 barriers, {{[0-9]+}} bytes smem

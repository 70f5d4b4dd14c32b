// REQUIRES: ptxas
// sift's scatter kernels (sift-kernels-scatter.mlir) through the GPU
// pipeline to PTX, assembled by the toolkit's ptxas for sm_80 and sm_90
// with no spills, no barrier and no shared memory: the atomics are the
// hardware's (a signed 64-bit max of lane numbers for reduce(none), an f32
// add, an unsigned 64-bit max of an f64 max's keys, a signed 32-bit min),
// global and one per thread.
//
// RUN: tensor-opt %S/sift-kernels-scatter.mlir --symbol-privatize=exclude=none_rows,add_f32,max_f64,min_i32_batched --symbol-dce | tensor-opt --sift-gpu-pipeline="chip=sm_90 fuse=0" -o %t.sm90.mlir
// RUN: %extract_ptx %t.sm90 %t.sm90.mlir
// RUN: FileCheck %s --check-prefix=WINNER < %t.sm90/none_rows_kernel_0.ptx
// RUN: FileCheck %s --check-prefix=ADD < %t.sm90/add_f32_kernel_2.ptx
// RUN: FileCheck %s --check-prefix=KEYS < %t.sm90/max_f64_kernel_3.ptx
// RUN: FileCheck %s --check-prefix=MIN < %t.sm90/min_i32_batched_kernel_5.ptx
// RUN: %ptxas -v -arch=sm_90 %t.sm90/none_rows_kernel.ptx -o %t.a.90.cubin 2>&1 | FileCheck %s
// RUN: %ptxas -v -arch=sm_90 %t.sm90/none_rows_kernel_0.ptx -o %t.b.90.cubin 2>&1 | FileCheck %s
// RUN: %ptxas -v -arch=sm_90 %t.sm90/none_rows_kernel_1.ptx -o %t.c.90.cubin 2>&1 | FileCheck %s
// RUN: %ptxas -v -arch=sm_90 %t.sm90/add_f32_kernel_2.ptx -o %t.d.90.cubin 2>&1 | FileCheck %s
// RUN: %ptxas -v -arch=sm_90 %t.sm90/max_f64_kernel_3.ptx -o %t.e.90.cubin 2>&1 | FileCheck %s
// RUN: %ptxas -v -arch=sm_90 %t.sm90/max_f64_kernel_4.ptx -o %t.f.90.cubin 2>&1 | FileCheck %s
// RUN: %ptxas -v -arch=sm_90 %t.sm90/min_i32_batched_kernel_5.ptx -o %t.g.90.cubin 2>&1 | FileCheck %s
// RUN: tensor-opt %S/sift-kernels-scatter.mlir --symbol-privatize=exclude=none_rows,add_f32,max_f64,min_i32_batched --symbol-dce | tensor-opt --sift-gpu-pipeline="chip=sm_80 fuse=0" -o %t.sm80.mlir
// RUN: %extract_ptx %t.sm80 %t.sm80.mlir
// RUN: %ptxas -v -arch=sm_80 %t.sm80/none_rows_kernel_0.ptx -o %t.b.80.cubin 2>&1 | FileCheck %s
// RUN: %ptxas -v -arch=sm_80 %t.sm80/none_rows_kernel_1.ptx -o %t.c.80.cubin 2>&1 | FileCheck %s
// RUN: %ptxas -v -arch=sm_80 %t.sm80/add_f32_kernel_2.ptx -o %t.d.80.cubin 2>&1 | FileCheck %s
// RUN: %ptxas -v -arch=sm_80 %t.sm80/max_f64_kernel_3.ptx -o %t.e.80.cubin 2>&1 | FileCheck %s
// RUN: %ptxas -v -arch=sm_80 %t.sm80/min_i32_batched_kernel_5.ptx -o %t.g.80.cubin 2>&1 | FileCheck %s

// CHECK: Compiling entry function '{{.*}}_kernel' for 'sm_{{80|90}}'
// CHECK: 0 bytes spill stores, 0 bytes spill loads
// CHECK: Used {{[0-9]+}} registers, used 0 barriers
// CHECK-NOT: smem

// WINNER: .target sm_90
// WINNER: atom.global.max.s64
// WINNER-NOT: bar.sync

// ADD: atom.global.add.f32
// ADD-NOT: atom.global.cas

// KEYS: atom.global.max.u64
// KEYS-NOT: atom.global.cas

// MIN: atom.global.min.s32

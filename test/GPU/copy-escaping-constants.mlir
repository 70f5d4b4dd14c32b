// A constant tensor that is a function's result or a branch's (a scatter's
// initial value kept when nothing is scattered) is copied into a tensor of
// its own before bufferization (--sift-gpu-copy-escaping-constants): a
// device buffer a kernel fills, the constant inside that kernel. Before, the
// host's memref.get_global flowed to kernels and to the result copy, which
// --sift-verify-gpu rejects ("a constant buffer in host memory").
//
// RUN: tensor-opt %s --sift-gpu-copy-escaping-constants | FileCheck %s
// RUN: tensor-opt %s --sift-gpu-pipeline="chip=sm_90 format=isa" | FileCheck %s --check-prefix=PIPE
// The same kernels run on the CPU (on-cpu=1), both branches: x + c (x = n /
// 2 in every element) when n != 0, c itself when n == 0; the constant
// returned as is.
// RUN: tensor-run %s -e f --arg n=0 --pipeline "builtin.module(sift-gpu-pipeline{on-cpu=1})" | FileCheck %s --check-prefix=RUN0
// RUN: tensor-run %s -e f --arg n=3 --pipeline "builtin.module(sift-gpu-pipeline{on-cpu=1})" | FileCheck %s --check-prefix=RUN3

// CHECK-LABEL: func.func @f
// CHECK: %[[C:.*]] = arith.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]>
// CHECK: scf.if
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT: %[[COPY:.*]] = linalg.copy ins(%[[C]] : tensor<4xf32>) outs(%[[E]] : tensor<4xf32>)
// CHECK-NEXT: scf.yield %[[COPY]]
// CHECK: } else {
// CHECK: %[[Y:.*]] = arith.addf %{{.*}}, %[[C]]
// CHECK-NEXT: scf.yield %[[Y]]
// CHECK: %[[E2:.*]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT: %[[COPY2:.*]] = linalg.copy ins(%[[C]] : tensor<4xf32>) outs(%[[E2]] : tensor<4xf32>)
// CHECK-NEXT: return %{{.*}}, %[[COPY2]]

// No host copy of the table: it is the kernels' (PTX .global) alone.
// PIPE-NOT: llvm.mlir.global {{.*}}__constant
// PIPE-LABEL: llvm.func @f(
// PIPE-NOT: llvm.mlir.addressof
// PIPE: gpu.launch_func
// PIPE: llvm.return

// RUN0: result 0: f32 [4]
// RUN0-NEXT: [1, 2, 3, 4]
// RUN0: result 1: f32 [4]
// RUN0-NEXT: [1, 2, 3, 4]
// RUN3: result 0: f32 [4]
// RUN3-NEXT: [2.5, 3.5, 4.5, 5.5]
// RUN3: result 1: f32 [4]
// RUN3-NEXT: [1, 2, 3, 4]
func.func @f(%n: index) -> (tensor<4xf32>, tensor<4xf32>) {
  %c = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %c0 = arith.constant 0 : index
  %half = arith.constant 0.5 : f32
  %ni = arith.index_cast %n : index to i64
  %nf = arith.sitofp %ni : i64 to f32
  %h = arith.mulf %nf, %half : f32
  %x = tensor.splat %h : tensor<4xf32>
  %p = arith.cmpi eq, %n, %c0 : index
  %r = scf.if %p -> tensor<4xf32> {
    scf.yield %c : tensor<4xf32>
  } else {
    %y = arith.addf %x, %c : tensor<4xf32>
    scf.yield %y : tensor<4xf32>
  }
  return %r, %c : tensor<4xf32>, tensor<4xf32>
}

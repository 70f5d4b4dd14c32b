// An input expand_shape with two dynamic sizes in one group becomes a
// tensor.reshape before bufferization: MLIR 22's --expand-strided-metadata
// crashes on its memref form (llvm/llvm-project#186830).
//
// RUN: tensor-opt %s --sift-expand-shape-to-reshape | FileCheck %s
// RUN: tensor-opt %s --sift-cpu-pipeline | FileCheck %s --check-prefix=LLVM
// RUN: tensor-run %s -e two_by_three | FileCheck %s --check-prefix=VALUES

// CHECK-LABEL: func.func @two_dynamic
// CHECK-SAME: (%[[X:.*]]: tensor<?xi64>, %[[A:.*]]: index, %[[B:.*]]: index)
// CHECK: %[[SHAPE:.*]] = tensor.from_elements %[[A]], %[[B]] : tensor<2xindex>
// CHECK: tensor.reshape %[[X]](%[[SHAPE]]) : (tensor<?xi64>, tensor<2xindex>) -> tensor<?x?xi64>
// LLVM: llvm.func @two_dynamic
func.func @two_dynamic(%x: tensor<?xi64>, %a: index, %b: index) -> tensor<?x?xi64> {
  %e = tensor.expand_shape %x [[0, 1]] output_shape [%a, %b] : tensor<?xi64> into tensor<?x?xi64>
  return %e : tensor<?x?xi64>
}

// One dynamic size per group is left to upstream.
// CHECK-LABEL: func.func @one_dynamic
// CHECK: tensor.expand_shape
func.func @one_dynamic(%x: tensor<?xi64>, %a: index) -> tensor<?x3xi64> {
  %e = tensor.expand_shape %x [[0, 1]] output_shape [%a, 3] : tensor<?xi64> into tensor<?x3xi64>
  return %e : tensor<?x3xi64>
}

// VALUES: @two_by_three: 0 argument(s), 1 result(s)
// VALUES: result 0: i64 [2, 3]
// VALUES-NEXT: [0, 1, 2, 3, 4, 5]
func.func @two_by_three() -> tensor<?x?xi64> {
  %x = arith.constant dense<[0, 1, 2, 3, 4, 5]> : tensor<6xi64>
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %d = tensor.cast %x : tensor<6xi64> to tensor<?xi64>
  %r = call @two_dynamic(%d, %c2, %c3) : (tensor<?xi64>, index, index) -> tensor<?x?xi64>
  return %r : tensor<?x?xi64>
}

// Calls are inlined before the rewrite: a helper that returns a selection
// becomes part of its caller, whose sizes are then bounded together; the
// private helper, left without a call, is erased.
// RUN: tensor-opt %s --sift-staticize --sift-verify-static | FileCheck %s

// CHECK-NOT: func.func private @positives
func.func private @positives(%labels: tensor<100xi64>) -> tensor<?xi64> {
  %one = arith.constant dense<1> : tensor<100xi64>
  %m = arith.cmpi eq, %labels, %one : tensor<100xi64>
  %p = sift.nonzero %m : tensor<100xi1> -> tensor<?xi64>
  return %p : tensor<?xi64>
}

// CHECK-LABEL: func.func @first_positives
// CHECK-SAME: -> (tensor<10xf32>, tensor<i64>)
// CHECK-NOT: func.call
// CHECK: sift.compact
// CHECK: sift.gather
func.func @first_positives(%labels: tensor<100xi64>, %x: tensor<100xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c10 = arith.constant 10 : index
  %p = func.call @positives(%labels) : (tensor<100xi64>) -> tensor<?xi64>
  %n = tensor.dim %p, %c0 : tensor<?xi64>
  %k = arith.minui %n, %c10 : index
  %first = tensor.extract_slice %p[0] [%k] [1] : tensor<?xi64> to tensor<?xi64>
  %v = sift.gather %x[%first] : tensor<100xf32>, tensor<?xi64> -> tensor<?xf32>
  return %v : tensor<?xf32>
}

// CHECK-LABEL: func.func @all_positives
// CHECK-SAME: -> (tensor<100xi64>, tensor<i64>)
func.func @all_positives(%labels: tensor<100xi64>) -> tensor<?xi64> {
  %p = func.call @positives(%labels) : (tensor<100xi64>) -> tensor<?xi64>
  return %p : tensor<?xi64>
}

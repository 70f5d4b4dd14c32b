// gather and scatter with batch_dims on bounded rows: the leading dimension
// is a batch dimension of every operand, with the same rows in the dynamic
// program. The other operands are fitted to the padded rows of the indices
// (gather) or of the dest (scatter); the result keeps that count.
// RUN: tensor-opt %s --sift-staticize --sift-verify-static | FileCheck %s

// A per-row pick of selected rows, x[sel][arange(n), y[sel]].
// CHECK-LABEL: func.func @pick
// CHECK-SAME: -> (tensor<64x1xf32>, tensor<i64>)
// CHECK: %[[ROWS:.*]] = sift.gather %arg0[%{{.*}}] : tensor<64x5xf32>, tensor<64xi64> -> tensor<64x5xf32>
// CHECK: sift.gather %[[ROWS]][%{{.*}}] {batch_dims = 1 : i64} : tensor<64x5xf32>, tensor<64x1xi64> -> tensor<64x1xf32>
func.func @pick(%x: tensor<64x5xf32>, %y: tensor<64x1xi64>, %m: tensor<64xi1>) -> tensor<?x1xf32> {
  %xs = sift.masked_select %x, %m : tensor<64x5xf32>, tensor<64xi1> -> tensor<?x5xf32>
  %ys = sift.masked_select %y, %m : tensor<64x1xi64>, tensor<64xi1> -> tensor<?x1xi64>
  %p = sift.gather %xs[%ys] {batch_dims = 1 : i64} : tensor<?x5xf32>, tensor<?x1xi64> -> tensor<?x1xf32>
  return %p : tensor<?x1xf32>
}

// Each selected row adds its updates into its own row of a selected dest:
// the count is the dest's.
// CHECK-LABEL: func.func @add_into_rows
// CHECK-SAME: -> (tensor<32x4xf32>, tensor<i64>)
// CHECK: sift.scatter %{{.*}} into %{{.*}}[%{{.*}}] reduce(add) {batch_dims = 1 : i64} : tensor<32x2xf32>, tensor<32x2xi64> into tensor<32x4xf32>
func.func @add_into_rows(%d: tensor<32x4xf32>, %i: tensor<32x2xi64>, %u: tensor<32x2xf32>, %m: tensor<32xi1>) -> tensor<?x4xf32> {
  %ds = sift.masked_select %d, %m : tensor<32x4xf32>, tensor<32xi1> -> tensor<?x4xf32>
  %is = sift.masked_select %i, %m : tensor<32x2xi64>, tensor<32xi1> -> tensor<?x2xi64>
  %us = sift.masked_select %u, %m : tensor<32x2xf32>, tensor<32xi1> -> tensor<?x2xf32>
  %r = sift.scatter %us into %ds[%is] reduce(add) {batch_dims = 1 : i64} : tensor<?x2xf32>, tensor<?x2xi64> into tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}

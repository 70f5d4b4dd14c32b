// Function boundary ABI: each bounded result becomes its padded static
// tensor followed by its count (tensor<i64>); static results are unchanged;
// functions without data-dependent shapes are left alone.
// RUN: tensor-opt %s --sift-staticize | FileCheck %s

// The function lists its padded results (sift.bounded_results); result
// attributes move with their results.
// CHECK-LABEL: func @mixed_results
// CHECK-SAME: -> (tensor<4xf32>, tensor<10xi64> {sift.name = "picked"}, tensor<i64>, i64 {sift.name = "s"})
// CHECK-SAME: attributes {sift.bounded_results = array<i64: 1>}
func.func @mixed_results(%m: tensor<10xi1>, %x: tensor<4xf32>, %s: i64)
    -> (tensor<4xf32>, tensor<?xi64> {sift.name = "picked"},
        i64 {sift.name = "s"}) {
  // CHECK: %[[I:.*]], %{{.*}} = sift.compact
  // CHECK: %[[N:.*]] = arith.index_cast %{{.*}} : i64 to index
  // CHECK: %[[N64:.*]] = arith.index_cast %[[N]] : index to i64
  // CHECK: %[[C:.*]] = tensor.from_elements %[[N64]] : tensor<i64>
  // CHECK: return %{{.*}}, %[[I]], %[[C]], %{{.*}} : tensor<4xf32>, tensor<10xi64>, tensor<i64>, i64
  %i = sift.nonzero %m : tensor<10xi1> -> tensor<?xi64>
  return %x, %i, %s : tensor<4xf32>, tensor<?xi64>, i64
}

// CHECK-LABEL: func @already_static
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT: return %[[X]]
func.func @already_static(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// sift.nonzero becomes sift.compact: the indices padded to the number of
// candidates, and the count; tensor.dim of the result becomes the count.
// RUN: tensor-opt %s --sift-staticize --sift-verify-static | FileCheck %s

// CHECK-LABEL: func @nonzero_1d
// CHECK-SAME: (%[[M:.*]]: tensor<100xi1>) -> (tensor<100xi64>, tensor<i64>, index)
func.func @nonzero_1d(%m: tensor<100xi1>) -> (tensor<?xi64>, index) {
  %c0 = arith.constant 0 : index
  // CHECK: %[[IDX:.*]], %[[CNT:.*]] = sift.compact %[[M]] : tensor<100xi1> -> tensor<100xi64>, tensor<i64>
  // CHECK: %[[E:.*]] = tensor.extract %[[CNT]][] : tensor<i64>
  // CHECK: %[[N:.*]] = arith.index_cast %[[E]] : i64 to index
  // CHECK-NOT: sift.nonzero
  %0 = sift.nonzero %m : tensor<100xi1> -> tensor<?xi64>
  %n = tensor.dim %0, %c0 : tensor<?xi64>
  // CHECK: %[[N64:.*]] = arith.index_cast %[[N]] : index to i64
  // CHECK: %[[R:.*]] = tensor.from_elements %[[N64]] : tensor<i64>
  // CHECK: return %[[IDX]], %[[R]], %[[N]]
  return %0, %n : tensor<?xi64>, index
}

// Non-boolean inputs compare with zero first (NaN is non-zero: une).
// CHECK-LABEL: func @nonzero_float
func.func @nonzero_float(%x: tensor<64xf32>) -> tensor<?xi64> {
  // CHECK: %[[NZ:.*]] = arith.cmpf une, %{{.*}}, %{{.*}} : tensor<64xf32>
  // CHECK: sift.compact %[[NZ]] : tensor<64xi1> -> tensor<64xi64>, tensor<i64>
  %0 = sift.nonzero %x : tensor<64xf32> -> tensor<?xi64>
  return %0 : tensor<?xi64>
}

// N-D: compaction of the flattened mask, then the flat indices unravelled
// into coordinates with the row-major strides.
// CHECK-LABEL: func @nonzero_2d
// CHECK-SAME: -> (tensor<12x2xi64>, tensor<i64>)
func.func @nonzero_2d(%m: tensor<3x4xi1>) -> tensor<?x2xi64> {
  // CHECK: %[[FLAT:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1]] : tensor<3x4xi1> into tensor<12xi1>
  // CHECK: %[[IDX:.*]], %{{.*}} = sift.compact %[[FLAT]] : tensor<12xi1> -> tensor<12xi64>, tensor<i64>
  // CHECK-DAG: %[[STRIDES:.*]] = arith.constant dense<[4, 1]> : tensor<2xi64>
  // CHECK-DAG: %[[SIZES:.*]] = arith.constant dense<[3, 4]> : tensor<2xi64>
  // CHECK: linalg.generic {{.*}} ins(%[[IDX]], %[[STRIDES]], %[[SIZES]] : tensor<12xi64>, tensor<2xi64>, tensor<2xi64>)
  // CHECK: arith.divsi
  // CHECK: arith.remsi
  %0 = sift.nonzero %m : tensor<3x4xi1> -> tensor<?x2xi64>
  return %0 : tensor<?x2xi64>
}

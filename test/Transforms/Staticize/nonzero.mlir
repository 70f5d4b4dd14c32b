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

// The padding rows of a staticized value are unspecified, so a compaction
// whose padding nothing returns writes none (`unpadded`): here only a
// gather of its first rows reads it, and the gather's own padding rows are
// its fill.
// CHECK-LABEL: func @unpadded_when_only_read_below_count
// CHECK: sift.compact %{{.*}} unpadded : tensor<100xi1> -> tensor<100xi64>, tensor<i64>
func.func @unpadded_when_only_read_below_count(%m: tensor<100xi1>, %x: tensor<100xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %0 = sift.nonzero %m : tensor<100xi1> -> tensor<?xi64>
  %n = tensor.dim %0, %c0 : tensor<?xi64>
  %k = arith.minui %n, %c4 : index
  %first = tensor.extract_slice %0[0] [%k] [1] : tensor<?xi64> to tensor<?xi64>
  %v = sift.gather %x[%first] : tensor<100xf32>, tensor<?xi64> -> tensor<?xf32>
  %zero = arith.constant dense<0.0> : tensor<f32>
  %s = linalg.reduce ins(%v : tensor<?xf32>) outs(%zero : tensor<f32>) dimensions = [0]
    (%a: f32, %acc: f32) {
      %r = arith.addf %a, %acc : f32
      linalg.yield %r : f32
    }
  %e = tensor.extract %s[] : tensor<f32>
  return %e : f32
}

// A returned value computed from the compaction's padding rows (here
// elementwise) gets them written: the function's results are the same from
// call to call.
// CHECK-LABEL: func @padded_when_returned_through_elementwise
// CHECK: %[[I:.*]], %{{.*}} = sift.compact %{{[^ ]*}} : tensor<100xi1> -> tensor<100xi64>, tensor<i64>
// CHECK: %[[R:.*]] = arith.addi %[[I]]
// CHECK: return %[[R]]
func.func @padded_when_returned_through_elementwise(%m: tensor<100xi1>) -> tensor<?xi64> {
  %c0 = arith.constant 0 : index
  %0 = sift.nonzero %m : tensor<100xi1> -> tensor<?xi64>
  %n = tensor.dim %0, %c0 : tensor<?xi64>
  %ones = arith.constant 1 : i64
  %o = tensor.splat %ones[%n] : tensor<?xi64>
  %r = arith.addi %0, %o : tensor<?xi64>
  return %r : tensor<?xi64>
}

// masked_select's rows gathered from unpadded indices would be arbitrary
// rows: returned, its compaction writes the -1 padding, which gathers the
// fill.
// CHECK-LABEL: func @masked_select_returned
// CHECK: %[[I:.*]], %{{.*}} = sift.compact %{{[^ ]*}} : tensor<50xi1> -> tensor<50xi64>, tensor<i64>
// CHECK: %[[G:.*]] = sift.gather %{{.*}}[%[[I]]]
// CHECK: return %[[G]]
func.func @masked_select_returned(%x: tensor<50xf32>, %m: tensor<50xi1>) -> tensor<?xf32> {
  %s = sift.masked_select %x, %m : tensor<50xf32>, tensor<50xi1> -> tensor<?xf32>
  return %s : tensor<?xf32>
}

// A gather that reads rows of a selection by position, past its count (the
// reshape of a selection into rows of 3 reads rows 0..101 of the 100 padded
// ones): the returned value holds the selection's padding rows, so its
// compaction writes the -1 padding.
// CHECK-LABEL: func @padded_when_padding_rows_are_regathered
// CHECK: sift.compact %{{[^ ]*}} : tensor<100xi1> -> tensor<100xi64>, tensor<i64>
// CHECK-NOT: unpadded
func.func @padded_when_padding_rows_are_regathered(%valid: tensor<100xi1>) -> tensor<?x3xi64> {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %ids = sift.nonzero %valid : tensor<100xi1> -> tensor<?xi64>
  %n = tensor.dim %ids, %c0 : tensor<?xi64>
  %t = arith.divui %n, %c3 : index
  %triples = tensor.expand_shape %ids [[0, 1]] output_shape [%t, 3]
      : tensor<?xi64> into tensor<?x3xi64>
  return %triples : tensor<?x3xi64>
}

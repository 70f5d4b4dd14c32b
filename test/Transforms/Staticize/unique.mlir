// unique = stable sort, "differs from the previous value" flags (NaNs are
// one value), compaction of the flags; counts are the differences of group
// starts; the inverse is the group id sent back through the inverse
// permutation (the argsort of the sort indices).
// RUN: tensor-opt %s --sift-staticize --sift-verify-static | FileCheck %s

// CHECK-LABEL: func @unique_all
// CHECK-SAME: -> (tensor<8xi64>, tensor<i64>, tensor<2x4xi64>, tensor<8xi64>, tensor<i64>)
func.func @unique_all(%x: tensor<2x4xi64>) -> (tensor<?xi64>, tensor<2x4xi64>, tensor<?xi64>) {
  // CHECK: %[[FLAT:.*]] = tensor.collapse_shape
  // CHECK: %[[SORTED:.*]], %[[PERM:.*]] = sift.sort %[[FLAT]] : tensor<8xi64> -> tensor<8xi64>, tensor<8xi64>
  // CHECK: %[[PREV:.*]] = sift.gather %[[SORTED]][%{{.*}}] : tensor<8xi64>, tensor<8xi64> -> tensor<8xi64>
  // CHECK: %[[NE:.*]] = arith.cmpi ne, %[[SORTED]], %[[PREV]] : tensor<8xi64>
  // CHECK: %[[FLAGS:.*]] = arith.ori %[[NE]], %{{.*}} : tensor<8xi1>
  // CHECK: %[[STARTS:.*]], %[[N:.*]] = sift.compact %[[FLAGS]] : tensor<8xi1> -> tensor<8xi64>, tensor<i64>
  // CHECK: %[[VALUES:.*]] = sift.gather %[[SORTED]][%[[STARTS]]]
  // CHECK: %[[COUNTS:.*]] = arith.subi %{{.*}}, %[[STARTS]] : tensor<8xi64>
  // CHECK: %[[GROUP:.*]] = sift.cumsum %[[FLAGS]] : tensor<8xi1> -> tensor<8xi64>
  // CHECK: %[[BACK:.*]] = sift.argsort %[[PERM]] : tensor<8xi64> -> tensor<8xi64>
  // CHECK: %[[INV:.*]] = sift.gather %{{.*}}[%[[BACK]]]
  // CHECK: %[[INV2:.*]] = tensor.expand_shape %[[INV]] {{\[\[}}0, 1]] output_shape [2, 4] : tensor<8xi64> into tensor<2x4xi64>
  // CHECK: return %[[VALUES]], %{{.*}}, %[[INV2]], %[[COUNTS]], %{{.*}}
  %u, %inv, %cnt = sift.unique %x inverse counts : tensor<2x4xi64> -> tensor<?xi64>, tensor<2x4xi64>, tensor<?xi64>
  return %u, %inv, %cnt : tensor<?xi64>, tensor<2x4xi64>, tensor<?xi64>
}

// Floats: a value differs from the one before it when they compare `une`
// and are not both NaN (a NaN equals the NaN before it; equal numbers, -0.0
// and +0.0 included, are one group).
// CHECK-LABEL: func @unique_float
// CHECK: %[[UNE:.*]] = arith.cmpf une, %[[S:.*]], %[[P:.*]] : tensor<16xf32>
// CHECK-DAG: %[[NAN_S:.*]] = arith.cmpf uno, %[[S]], %[[S]]
// CHECK-DAG: %[[NAN_P:.*]] = arith.cmpf uno, %[[P]], %[[P]]
// CHECK: %[[BOTH:.*]] = arith.andi %[[NAN_S]], %[[NAN_P]]
// CHECK: %[[NOT_BOTH:.*]] = arith.xori %[[BOTH]], %{{.*}}
// CHECK: %[[DIFF:.*]] = arith.andi %[[UNE]], %[[NOT_BOTH]]
// CHECK: arith.ori %[[DIFF]], %{{.*}}
// CHECK: sift.compact
func.func @unique_float(%x: tensor<16xf32>) -> tensor<?xf32> {
  %u = sift.unique %x : tensor<16xf32> -> tensor<?xf32>
  return %u : tensor<?xf32>
}

// unique of a bounded i1 tensor: no i1 key sorts after both valid ones, so
// the keys are sorted as i8 (0, 1) with the padding 127, and the values
// truncated back to i1.
// CHECK-LABEL: func @unique_of_selected_flags
// CHECK-SAME: -> (tensor<12xi1>, tensor<i64>, tensor<12xi64>, tensor<i64>)
// CHECK: %[[WIDE:.*]] = arith.extui %{{.*}} : tensor<12xi1> to tensor<12xi8>
// CHECK: %[[PAD:.*]] = arith.constant dense<127> : tensor<12xi8>
// CHECK: %[[KEYS:.*]] = arith.select %{{.*}}, %[[WIDE]], %[[PAD]] : tensor<12xi1>, tensor<12xi8>
// CHECK: %[[SORTED:.*]], %{{.*}} = sift.sort %[[KEYS]] : tensor<12xi8>
// CHECK: sift.compact
// CHECK: %[[VALUES:.*]] = sift.gather %[[SORTED]][%[[GROUPS:.*]]] : tensor<12xi8>, tensor<12xi64> -> tensor<12xi8>
// CHECK-NEXT: arith.trunci %[[VALUES]] : tensor<12xi8> to tensor<12xi1>
func.func @unique_of_selected_flags(%x: tensor<12xi1>, %m: tensor<12xi1>) -> (tensor<?xi1>, tensor<?xi64>) {
  %sel = sift.masked_select %x, %m : tensor<12xi1>, tensor<12xi1> -> tensor<?xi1>
  %u, %cnt = sift.unique %sel counts : tensor<?xi1> -> tensor<?xi1>, tensor<?xi64>
  return %u, %cnt : tensor<?xi1>, tensor<?xi64>
}

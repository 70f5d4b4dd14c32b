// The structure of --convert-sift-to-linalg that matters: Philox rounds,
// radix passes, the runtime error hook.
//
// RUN: tensor-opt %s --convert-sift-to-linalg -split-input-file | FileCheck %s

// Philox4x32-10: two 32x32->64 multiplies per round, ten rounds, in one
// parallel linalg.generic over the result.
// CHECK-LABEL: func.func @random_bits
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel"]
// CHECK-COUNT-20: arith.mului_extended
// CHECK-NOT: arith.mului_extended
// CHECK: linalg.yield
func.func @random_bits(%seed: i64, %off: i64) -> tensor<16xi32> {
  %r = sift.random_bits %seed offset %off : tensor<16xi32>
  return %r : tensor<16xi32>
}

// -----

// An f32 sort is four 8-bit LSD radix passes, each a histogram, a prefix sum
// over 256 buckets and a stable scatter; the independent lines are an
// scf.forall (parallel threads on the CPU).
// CHECK-LABEL: func.func @sort_f32
// CHECK: scf.forall
// CHECK: tensor.extract_slice
// CHECK-COUNT-4: scf.for %{{.*}} = %{{.*}} to %c256
// CHECK-NOT: to %c256
// CHECK: scf.forall.in_parallel
// CHECK: tensor.parallel_insert_slice
func.func @sort_f32(%x: tensor<8x100xf32>) -> (tensor<8x100xf32>, tensor<8x100xi64>) {
  %v, %i = sift.sort %x : tensor<8x100xf32> -> tensor<8x100xf32>, tensor<8x100xi64>
  return %v, %i : tensor<8x100xf32>, tensor<8x100xi64>
}

// -----

// An i1 key needs one pass, an i64 key eight.
// CHECK-LABEL: func.func @argsort_i1
// CHECK-COUNT-1: to %c256
// CHECK-NOT: to %c256
// CHECK-LABEL: func.func @argsort_i64
// CHECK-COUNT-8: to %c256
// CHECK-NOT: to %c256
func.func @argsort_i1(%x: tensor<10xi1>) -> tensor<10xi64> {
  %i = sift.argsort %x : tensor<10xi1> -> tensor<10xi64>
  return %i : tensor<10xi64>
}
func.func @argsort_i64(%x: tensor<10xi64>) -> tensor<10xi64> {
  %i = sift.argsort %x descending : tensor<10xi64> -> tensor<10xi64>
  return %i : tensor<10xi64>
}

// -----

// Out-of-range targets call the runtime, declared once per module, with the
// code (2: SIFT_RT_ERROR_CROSS_ENTROPY_TARGET), the target, its row and C.
// CHECK: func.func private @sift_rt_report(i64, i64, i64, i64)
// CHECK-LABEL: func.func @cross_entropy
// CHECK-DAG: %[[CODE:.*]] = arith.constant 2 : i64
// CHECK-DAG: %[[C:.*]] = arith.constant 3 : i64
// CHECK: %[[T:.*]] = tensor.extract %{{.*}}[%{{.*}}] : tensor<4xi64>
// CHECK: scf.if
// CHECK: %[[ROW:.*]] = arith.index_cast
// CHECK-NEXT: func.call @sift_rt_report(%[[CODE]], %[[T]], %[[ROW]], %[[C]]) : (i64, i64, i64, i64) -> ()
// CHECK: math.exp
// CHECK: math.log
func.func @cross_entropy(%x: tensor<4x3xf32>, %t: tensor<4xi64>) -> tensor<f32> {
  %r = sift.cross_entropy %x, %t reduction = mean : tensor<4x3xf32>, tensor<4xi64> -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// count is a reduction over the last axis.
// CHECK-LABEL: func.func @count
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "reduction"]
// CHECK: arith.cmpf une
func.func @count(%x: tensor<4x8xf32>) -> tensor<4xi64> {
  %r = sift.count %x : tensor<4x8xf32> -> tensor<4xi64>
  return %r : tensor<4xi64>
}

// -----

// A gather of whole rows reads each index once, in a parallel loop over the
// index positions, and copies the row it names into the result's row (the
// fill when it is out of range).
// CHECK-LABEL: func.func @gather_rows
// CHECK: scf.forall (%[[B:.*]], %[[J:.*]]) in (2, 5)
// CHECK: %[[IDX:.*]] = tensor.extract %{{.*}}[%[[B]], %[[J]]]
// CHECK: %[[ROW:.*]] = tensor.extract_slice %{{.*}}[%[[B]], %[[J]], 0] [1, 1, 16] [1, 1, 1]
// CHECK: scf.if
// CHECK: tensor.extract_slice %{{.*}}[%[[B]], %{{.*}}, 0] [1, 1, 16] [1, 1, 1]
// CHECK: bufferization.materialize_in_destination %{{.*}} in %[[ROW]]
// CHECK: } else {
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[ROW]] : tensor<16xf32>)
// CHECK: tensor.parallel_insert_slice
func.func @gather_rows(%s: tensor<2x7x16xf32>, %i: tensor<2x5xi64>) -> tensor<2x5x16xf32> {
  %r = sift.gather %s[%i] {batch_dims = 1 : i64} : tensor<2x7x16xf32>, tensor<2x5xi64> -> tensor<2x5x16xf32>
  return %r : tensor<2x5x16xf32>
}

// The structure of the lowering of the ops in Loss.cpp: cross_entropy, one
// line of logits per target, each a max-shifted log-sum-exp.
//
// RUN: tensor-opt %s --convert-sift-to-linalg -split-input-file | FileCheck %s

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

// Per row (a parallel linalg.generic over the rows, writing each row's loss
// and weight in place: no buffer per row): lse = m + log(sum exp(x - m))
// with m the row's maximum (maximumf from -inf, so NaN propagates), NaN when
// m is not finite; the loss is lse - x[t], NaN for an invalid target and 0
// for ignore_index (-100). The sum may reassociate and exp/log may be
// approximated (the loops vectorize). Half types compute in f32 and round
// the result once.
// CHECK-LABEL: func.func @cross_entropy_lse
// CHECK-DAG: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-DAG: %[[INF:.*]] = arith.constant 0x7F800000 : f32
// CHECK-DAG: %[[NAN:.*]] = arith.constant 0x7FC00000 : f32
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[IGNORE:.*]] = arith.constant -100 : i64
// CHECK-NOT: scf.forall
// CHECK: %[[PER_ROW:.*]]:2 = linalg.generic {{.*}} iterator_types = ["parallel"]} outs(%{{.*}}, %{{.*}} : tensor<4xf32>, tensor<4xf32>)
// CHECK: %[[ROW:.*]] = linalg.index 0
// CHECK: %[[LINE:.*]] = tensor.extract_slice %arg0[%[[ROW]], 0] [1, 3] [1, 1] : tensor<4x3xf16> to tensor<3xf16>
// CHECK: %[[T:.*]] = tensor.extract %arg1[%[[ROW]]]
// CHECK: %[[IGNORED:.*]] = arith.cmpi eq, %[[T]], %[[IGNORE]]
// CHECK: %[[MAX:.*]] = scf.for {{.*}} iter_args(%[[M:.*]] = %[[NEGINF]]) -> (f32)
// CHECK: tensor.extract %[[LINE]]
// CHECK: %[[X:.*]] = arith.extf %{{.*}} : f16 to f32
// CHECK: arith.maximumf %[[M]], %[[X]]
// CHECK: %[[SUM:.*]] = scf.for {{.*}} iter_args(%[[S:.*]] = %[[ZERO]]) -> (f32)
// CHECK: %[[Y:.*]] = arith.extf %{{.*}} : f16 to f32
// CHECK: %[[SHIFTED:.*]] = arith.subf %[[Y]], %[[MAX]]
// CHECK: %[[E:.*]] = math.exp %[[SHIFTED]] fastmath<afn>
// CHECK: arith.addf %[[S]], %[[E]] fastmath<reassoc>
// CHECK: %[[LOG:.*]] = math.log %[[SUM]] fastmath<afn>
// CHECK: %[[SHIFTED_LSE:.*]] = arith.addf %[[MAX]], %[[LOG]]
// CHECK: %[[ABS:.*]] = math.absf %[[MAX]]
// CHECK: %[[FINITE:.*]] = arith.cmpf olt, %[[ABS]], %[[INF]]
// CHECK: %[[LSE:.*]] = arith.select %[[FINITE]], %[[SHIFTED_LSE]], %[[NAN]]
// CHECK: %[[XT:.*]] = scf.if %[[VALID:.*]] -> (f32)
// CHECK: } else {
// CHECK-NEXT: scf.yield %[[NAN]]
// CHECK: %[[LOSS:.*]] = arith.subf %[[LSE]], %[[XT]]
// CHECK: %[[CHECKED:.*]] = arith.select %[[VALID]], %[[LOSS]], %[[NAN]]
// CHECK: %[[RESULT:.*]] = arith.select %[[IGNORED]], %[[ZERO]], %[[CHECKED]]
// CHECK: linalg.yield %[[RESULT]], %{{.*}} : f32, f32
// CHECK-NOT: tensor.from_elements
// CHECK: linalg.generic {{.*}} ins(%[[PER_ROW]]#0
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @cross_entropy_lse(%x: tensor<4x3xf16>, %t: tensor<4xi64>) -> tensor<4xf16> {
  %r = sift.cross_entropy %x, %t reduction = none : tensor<4x3xf16>, tensor<4xi64> -> tensor<4xf16>
  return %r : tensor<4xf16>
}

// -----

// With batch_dims = 1 each item sums its own rows (5 consecutive rows of the
// collapsed logits) in f64, then rounds once.
// CHECK-LABEL: func.func @cross_entropy_sum_per_item
// CHECK-DAG: %[[C5:.*]] = arith.constant 5 : index
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f64
// CHECK: %[[ROWS:.*]] = tensor.collapse_shape %arg0 {{\[\[}}0, 1], [2]] : tensor<2x5x3xf32> into tensor<10x3xf32>
// CHECK: %[[TARGETS:.*]] = tensor.collapse_shape %arg1 {{\[\[}}0, 1]] : tensor<2x5xi64> into tensor<10xi64>
// CHECK: %[[PER_ROW:.*]]:2 = linalg.generic
// CHECK: tensor.extract_slice %[[ROWS]]
// CHECK: tensor.extract %[[TARGETS]]
// CHECK: linalg.generic
// CHECK: %[[ITEM:.*]] = linalg.index 0
// CHECK: %[[FIRST:.*]] = arith.muli %[[ITEM]], %[[C5]]
// CHECK: %[[LAST:.*]] = arith.addi %[[FIRST]], %[[C5]]
// CHECK: %[[SUMS:.*]]:2 = scf.for %{{.*}} = %[[FIRST]] to %[[LAST]] {{.*}} iter_args(%{{.*}} = %[[ZERO]], %{{.*}} = %[[ZERO]]) -> (f64, f64)
// CHECK: tensor.extract %[[PER_ROW]]#0
// CHECK: arith.extf %{{.*}} : f32 to f64
// CHECK: arith.truncf %[[SUMS]]#0 : f64 to f32
func.func @cross_entropy_sum_per_item(%x: tensor<2x5x3xf32>, %t: tensor<2x5xi64>) -> tensor<2xf32> {
  %r = sift.cross_entropy %x, %t reduction = sum {batch_dims = 1 : i64} : tensor<2x5x3xf32>, tensor<2x5xi64> -> tensor<2xf32>
  return %r : tensor<2xf32>
}

// scf.if on a shared condition stays a branch: a result is per row when
// either branch yields a per-row value (the other branch's shared value is
// then broadcast in that branch); a shared result is broadcast at its use.
// RUN: tensor-opt %s --sift-batch="func=f size=2 unbatched=1" | FileCheck %s

// CHECK-LABEL: func.func @f_batched
// CHECK-SAME: (%[[X:.*]]: tensor<2x4xf32>, %[[C:.*]]: i1, %[[K:.*]]: tensor<2xi64>)
// CHECK: %[[ONE:.*]] = arith.constant 1 : i64
// CHECK: %[[R:.*]]:3 = scf.if %[[C]] -> (tensor<2x4xf32>, i64, tensor<2xi64>) {
// CHECK: %[[Y:.*]] = linalg.generic
// CHECK: scf.yield %[[Y]], %[[ONE]], %[[K]] : tensor<2x4xf32>, i64, tensor<2xi64>
// CHECK: } else {
// CHECK: %[[TWO:.*]] = arith.constant 2 : i64
// CHECK: %[[ONES:.*]] = tensor.splat %[[ONE]] : tensor<2xi64>
// CHECK: scf.yield %[[X]], %[[TWO]], %[[ONES]] : tensor<2x4xf32>, i64, tensor<2xi64>
// CHECK: }
// CHECK: %[[SHARED:.*]] = tensor.splat %[[R]]#1 : tensor<2xi64>
// CHECK: return %[[R]]#0, %[[SHARED]], %[[R]]#2
func.func @f(%x: tensor<4xf32>, %c: i1, %k: i64) -> (tensor<4xf32>, i64, i64) {
  %one = arith.constant 1 : i64
  %r:3 = scf.if %c -> (tensor<4xf32>, i64, i64) {
    %y = arith.addf %x, %x : tensor<4xf32>
    scf.yield %y, %one, %k : tensor<4xf32>, i64, i64
  } else {
    %two = arith.constant 2 : i64
    scf.yield %x, %two, %one : tensor<4xf32>, i64, i64
  }
  return %r#0, %r#1, %r#2 : tensor<4xf32>, i64, i64
}

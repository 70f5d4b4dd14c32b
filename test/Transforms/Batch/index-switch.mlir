// scf.index_switch on a shared index stays a switch, its cases batched: a
// result is per row when any case yields a per-row value (a case's shared
// value is then broadcast in that case, here a folded constant).
// RUN: tensor-opt %s --sift-batch="func=f size=2 unbatched=1" | FileCheck %s

// CHECK-LABEL: func.func @f_batched
// CHECK-SAME: (%[[X:.*]]: tensor<2x4xf32>, %[[I:.*]]: index)
// CHECK: %[[R:.*]] = scf.index_switch %[[I]] -> tensor<2x4xf32>
// CHECK: case 0 {
// CHECK: scf.yield %[[X]] : tensor<2x4xf32>
// CHECK: case 1 {
// CHECK: %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<2x4xf32>
// CHECK: scf.yield %[[Z]] : tensor<2x4xf32>
// CHECK: default {
// CHECK: %[[Y:.*]] = linalg.generic
// CHECK: scf.yield %[[Y]] : tensor<2x4xf32>
// CHECK: return %[[R]]
func.func @f(%x: tensor<4xf32>, %i: index) -> tensor<4xf32> {
  %r = scf.index_switch %i -> tensor<4xf32>
  case 0 {
    scf.yield %x : tensor<4xf32>
  }
  case 1 {
    %z = arith.constant dense<0.0> : tensor<4xf32>
    scf.yield %z : tensor<4xf32>
  }
  default {
    %y = arith.addf %x, %x : tensor<4xf32>
    scf.yield %y : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

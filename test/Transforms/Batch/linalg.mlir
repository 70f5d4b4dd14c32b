// The linalg rule: a leading parallel loop over the batch; named ops are
// generalized first; a per-row scalar the body uses becomes an input read
// at the row; linalg.index in the body shifts by one; an unbatched init is
// broadcast (a fresh tensor.empty is made batched instead).
// RUN: tensor-opt %s --sift-batch="func=f size=2" | FileCheck %s

// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @f_batched
// CHECK-SAME: (%[[X:.*]]: tensor<2x4xf32>, %[[Y:.*]]: tensor<2x4xf32>, %[[S:.*]]: tensor<2xf32>) -> (tensor<2x4xf32>, tensor<2xf32>)
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x4xf32>
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%[[X]], %[[S]] : tensor<2x4xf32>, tensor<2xf32>) outs(%[[E]] : tensor<2x4xf32>)
// CHECK: arith.mulf
// CHECK: linalg.index 1 : index
// CHECK: %[[FILL:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<f32>) -> tensor<f32>
// CHECK: %[[INIT:.*]] = linalg.generic
// CHECK-SAME: ins(%[[FILL]] : tensor<f32>) outs(%{{.*}} : tensor<2xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ROW]]], iterator_types = ["parallel", "reduction"]}
// CHECK-SAME: ins(%[[Y]] : tensor<2x4xf32>) outs(%[[INIT]] : tensor<2xf32>)
// CHECK: arith.addf
func.func @f(%x: tensor<4xf32>, %y: tensor<4xf32>, %s: f32) -> (tensor<4xf32>, tensor<f32>) {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = arith.mulf %a, %s : f32
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i64
    %fi = arith.sitofp %ii : i64 to f32
    %w = arith.addf %v, %fi : f32
    linalg.yield %w : f32
  } -> tensor<4xf32>
  %z = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<f32>
  %fill = linalg.fill ins(%z : f32) outs(%init : tensor<f32>) -> tensor<f32>
  %red = linalg.reduce ins(%y : tensor<4xf32>) outs(%fill : tensor<f32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %sum = arith.addf %in, %acc : f32
      linalg.yield %sum : f32
    }
  return %r, %red : tensor<4xf32>, tensor<f32>
}

// --sift-fuse-cheap-producers: a cheap elementwise producer is fused into
// every consumer.
//
// RUN: tensor-opt %s --sift-fuse-cheap-producers | FileCheck %s

// A comparison used by a reduction and by an elementwise op is recomputed in
// both: no i1 tensor is materialized.
// CHECK-LABEL: func.func @two_uses
// CHECK-NOT: tensor<4x8xi1>
// CHECK: linalg.generic {{.*}}ins(%{{.*}} : tensor<4x8xi64>) outs(%{{.*}} : tensor<4xi64>)
// CHECK: arith.cmpi eq
// CHECK: linalg.generic {{.*}}ins(%{{.*}}, %{{.*}} : tensor<4x8xi64>, tensor<4x8xi32>)
// CHECK: arith.cmpi eq
// CHECK-NOT: tensor<4x8xi1>
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @two_uses(%l: tensor<4x8xi64>, %k: tensor<4x8xi32>) -> (tensor<4xi64>, tensor<4x8xi32>) {
  %c1 = arith.constant 1 : i64
  %c0 = arith.constant 0 : i64
  %big = arith.constant 7 : i32
  %e1 = tensor.empty() : tensor<4x8xi1>
  %m = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%l : tensor<4x8xi64>) outs(%e1 : tensor<4x8xi1>) {
  ^bb0(%x: i64, %o: i1):
    %p = arith.cmpi eq, %x, %c1 : i64
    linalg.yield %p : i1
  } -> tensor<4x8xi1>
  %e2 = tensor.empty() : tensor<4xi64>
  %z = linalg.fill ins(%c0 : i64) outs(%e2 : tensor<4xi64>) -> tensor<4xi64>
  %n = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%m : tensor<4x8xi1>) outs(%z : tensor<4xi64>) {
  ^bb0(%b: i1, %acc: i64):
    %one = arith.extui %b : i1 to i64
    %s = arith.addi %acc, %one : i64
    linalg.yield %s : i64
  } -> tensor<4xi64>
  %e3 = tensor.empty() : tensor<4x8xi32>
  %sel = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m, %k : tensor<4x8xi1>, tensor<4x8xi32>) outs(%e3 : tensor<4x8xi32>) {
  ^bb0(%b: i1, %v: i32, %o: i32):
    %r = arith.select %b, %v, %big : i32
    linalg.yield %r : i32
  } -> tensor<4x8xi32>
  return %n, %sel : tensor<4xi64>, tensor<4x8xi32>
}

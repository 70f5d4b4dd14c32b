// The CPU pipeline's own passes: cheap elementwise producers fused into
// every consumer, and only the outer dimensions of loop nests parallel.
//
// RUN: tensor-opt %s -split-input-file --sift-fuse-cheap-producers | FileCheck %s --check-prefix=FUSE
// RUN: tensor-opt %s -split-input-file --sift-sequentialize-inner-parallel-dims | FileCheck %s --check-prefix=LOOPS

// A comparison used by a reduction and by an elementwise op is recomputed in
// both: no i1 tensor is materialized.
// FUSE-LABEL: func.func @two_uses
// FUSE-NOT: tensor<4x8xi1>
// FUSE: linalg.generic {{.*}}ins(%{{.*}} : tensor<4x8xi64>) outs(%{{.*}} : tensor<4xi64>)
// FUSE: arith.cmpi eq
// FUSE: linalg.generic {{.*}}ins(%{{.*}}, %{{.*}} : tensor<4x8xi64>, tensor<4x8xi32>)
// FUSE: arith.cmpi eq
// FUSE-NOT: tensor<4x8xi1>
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

// -----

// 64 rows are enough parallel iterations: the columns run sequentially
// inside each; a unit dimension is dropped.
// LOOPS-LABEL: func.func @outer_only
// LOOPS: scf.parallel (%[[I:.*]]) = (%c0) to (%c64) step (%c1)
// LOOPS-NEXT: scf.for %[[J:.*]] = %c0 to %c100 step %c1
// LOOPS-NEXT: memref.load %{{.*}}[%[[I]], %c0, %[[J]]]
func.func @outer_only(%a: memref<64x1x100xf32>, %b: memref<64x1x100xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c100 = arith.constant 100 : index
  scf.parallel (%i, %u, %j) = (%c0, %c0, %c0) to (%c64, %c1, %c100) step (%c1, %c1, %c1) {
    %x = memref.load %a[%i, %u, %j] : memref<64x1x100xf32>
    memref.store %x, %b[%i, %u, %j] : memref<64x1x100xf32>
  }
  return
}

// -----

// 4 rows are too few: the first two dimensions stay parallel. A parallel
// loop nested in another runs sequentially.
// LOOPS-LABEL: func.func @two_dims_and_nested
// LOOPS: scf.parallel (%{{.*}}, %{{.*}}) = (%c0, %c0) to (%c4, %c100) step (%c1, %c1)
// LOOPS-NOT: scf.parallel
// LOOPS: scf.for %{{.*}} = %c0 to %c100 step %c1
func.func @two_dims_and_nested(%a: memref<4x100x100xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c100 = arith.constant 100 : index
  %f = arith.constant 1.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c100) step (%c1, %c1) {
    scf.parallel (%k) = (%c0) to (%c100) step (%c1) {
      memref.store %f, %a[%i, %j, %k] : memref<4x100x100xf32>
    }
  }
  return
}

// RUN: tensor-opt %s --sift-layout --canonicalize --cse -split-input-file | FileCheck %s

// A per-column top-k (an IoU matrix, topk(k, dim=0)), a cumsum down the
// columns and a sort of that: each op runs along the last, contiguous
// axis of a transposed input. The shared input is transposed once, the
// transposes between the cumsum and the sort cancel, and each result is
// transposed back once: 4 transposes in all (one in, three out).
// CHECK-LABEL: func.func @columns
// CHECK-SAME: (%[[X:.*]]: tensor<1000x64xf32>)
// CHECK: %[[XT:.*]] = linalg.transpose ins(%[[X]] : tensor<1000x64xf32>) outs(%{{.*}} : tensor<64x1000xf32>) permutation = [1, 0]
// CHECK: %[[V:.*]], %[[I:.*]] = sift.topk %[[XT]] k(9) {dim = 1 : i64} : tensor<64x1000xf32> -> tensor<64x9xf32>, tensor<64x9xi64>
// CHECK: %[[VT:.*]] = linalg.transpose ins(%[[V]] : tensor<64x9xf32>) outs(%{{.*}} : tensor<9x64xf32>) permutation = [1, 0]
// CHECK: %[[IT:.*]] = linalg.transpose ins(%[[I]] : tensor<64x9xi64>) outs(%{{.*}} : tensor<9x64xi64>) permutation = [1, 0]
// CHECK: %[[C:.*]] = sift.cumsum %[[XT]] {dim = 1 : i64} : tensor<64x1000xf32> -> tensor<64x1000xf32>
// CHECK: %[[S:.*]], %{{.*}} = sift.sort %[[C]] {dim = 1 : i64}
// CHECK: %[[ST:.*]] = linalg.transpose ins(%[[S]] : tensor<64x1000xf32>) outs(%{{.*}} : tensor<1000x64xf32>) permutation = [1, 0]
// CHECK-NOT: linalg.transpose
// CHECK: return %[[VT]], %[[IT]], %[[ST]]
func.func @columns(%iou: tensor<1000x64xf32>)
    -> (tensor<9x64xf32>, tensor<9x64xi64>, tensor<1000x64xf32>) {
  %v, %i = sift.topk %iou k(9) {dim = 0 : i64}
      : tensor<1000x64xf32> -> tensor<9x64xf32>, tensor<9x64xi64>
  %c = sift.cumsum %iou {dim = 0 : i64} : tensor<1000x64xf32> -> tensor<1000x64xf32>
  %s, %si = sift.sort %c {dim = 0 : i64}
      : tensor<1000x64xf32> -> tensor<1000x64xf32>, tensor<1000x64xi64>
  return %v, %i, %s : tensor<9x64xf32>, tensor<9x64xi64>, tensor<1000x64xf32>
}

// -----

// The middle axis of a 3-D tensor moves last (permutation [0, 2, 1]) and
// back; an argsort along dimension 0 of a tensor whose other dimensions
// are 1 already reads contiguous lines and is left alone, as is one along
// the last axis.
// CHECK-LABEL: func.func @middle
// CHECK: %[[T:.*]] = linalg.transpose ins(%arg0 : tensor<2x100x8xi32>) outs(%{{.*}} : tensor<2x8x100xi32>) permutation = [0, 2, 1]
// CHECK: %[[A:.*]] = sift.argsort %[[T]] descending {dim = 2 : i64} : tensor<2x8x100xi32> -> tensor<2x8x100xi64>
// CHECK: %[[B:.*]] = linalg.transpose ins(%[[A]] : tensor<2x8x100xi64>) outs(%{{.*}} : tensor<2x100x8xi64>) permutation = [0, 2, 1]
// CHECK: %[[U:.*]] = sift.argsort %arg1 {dim = 0 : i64} : tensor<100x1xi32> -> tensor<100x1xi64>
// CHECK: %[[L:.*]] = sift.argsort %arg2 : tensor<4x100xi32> -> tensor<4x100xi64>
// CHECK-NOT: linalg.transpose
// CHECK: return %[[B]], %[[U]], %[[L]]
func.func @middle(%x: tensor<2x100x8xi32>, %y: tensor<100x1xi32>, %z: tensor<4x100xi32>)
    -> (tensor<2x100x8xi64>, tensor<100x1xi64>, tensor<4x100xi64>) {
  %a = sift.argsort %x descending {dim = 1 : i64} : tensor<2x100x8xi32> -> tensor<2x100x8xi64>
  %u = sift.argsort %y {dim = 0 : i64} : tensor<100x1xi32> -> tensor<100x1xi64>
  %l = sift.argsort %z : tensor<4x100xi32> -> tensor<4x100xi64>
  return %a, %u, %l : tensor<2x100x8xi64>, tensor<100x1xi64>, tensor<4x100xi64>
}

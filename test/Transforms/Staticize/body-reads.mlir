// A linalg body that reads a bounded tensor defined outside (x[idx[k]] for
// the first k of a selection) reads its padded form, and its size is the
// count: a row below the count is the same row, any other was out of
// bounds in the dynamic program.
// RUN: tensor-opt %s --sift-staticize --sift-verify-static | FileCheck %s

// CHECK-LABEL: func.func @first_four
// CHECK: %[[IDX:.*]], %[[COUNT:.*]] = sift.compact
// CHECK: %[[N64:.*]] = tensor.extract %[[COUNT]][] : tensor<i64>
// CHECK: %[[N:.*]] = arith.index_cast %[[N64]] : i64 to index
// CHECK: linalg.generic
// CHECK: %[[K:.*]] = linalg.index 0 : index
// CHECK: arith.cmpi slt, %[[K]], %[[N]] : index
// CHECK: scf.if
// CHECK: tensor.extract %[[IDX]][%[[K]]] : tensor<16xi64>
// CHECK-NOT: tensor<?
func.func @first_four(%m: tensor<16xi1>, %x: tensor<16xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %idx = sift.nonzero %m : tensor<16xi1> -> tensor<?xi64>
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(k) -> (k)>],
                       iterator_types = ["parallel"]}
      outs(%e : tensor<4xf32>) {
    ^bb0(%o: f32):
      %k = linalg.index 0 : index
      %n = tensor.dim %idx, %c0 : tensor<?xi64>
      %in = arith.cmpi slt, %k, %n : index
      %r = scf.if %in -> (f32) {
        %j = tensor.extract %idx[%k] : tensor<?xi64>
        %ji = arith.index_cast %j : i64 to index
        %v = tensor.extract %x[%ji] : tensor<16xf32>
        scf.yield %v : f32
      } else {
        scf.yield %zero : f32
      }
      linalg.yield %r : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

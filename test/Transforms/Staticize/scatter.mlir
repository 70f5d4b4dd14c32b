// sift.scatter with bounded operands: the padding lanes of bounded indices
// become -1, which skips them (no mask on the updates); updates fit the
// indices' rows; a bounded dest keeps its count, and an index at or past it
// (out of range in the dynamic program) skips too.
// RUN: tensor-opt %s --sift-staticize --sift-verify-static -split-input-file | FileCheck %s

// CHECK-LABEL: func @bincount_of_selection
// CHECK-SAME: -> tensor<8xi64>
func.func @bincount_of_selection(%m: tensor<100xi1>, %labels: tensor<100xi64>) -> tensor<8xi64> {
  // CHECK: %[[IDX:.*]], %[[CNT:.*]] = sift.compact
  // CHECK: %[[N:.*]] = arith.index_cast %{{.*}} : i64 to index
  // CHECK: %[[CLS:.*]] = sift.gather %{{.*}}[%[[IDX]]] : tensor<100xi64>, tensor<100xi64> -> tensor<100xi64>
  // CHECK: %[[ONES:.*]] = tensor.splat %{{.*}} : tensor<100xi64>
  // CHECK: %[[INVALID:.*]] = arith.constant dense<-1> : tensor<100xi64>
  // CHECK: %[[VALID:.*]] = linalg.generic
  // CHECK:   arith.cmpi slt, %{{.*}}, %[[N]] : index
  // CHECK: %[[SAFE:.*]] = arith.select %[[VALID]], %[[CLS]], %[[INVALID]] : tensor<100xi1>, tensor<100xi64>
  // CHECK: %[[H:.*]] = sift.scatter %[[ONES]] into %{{.*}}[%[[SAFE]]] reduce(add) : tensor<100xi64>, tensor<100xi64> into tensor<8xi64>
  // CHECK: return %[[H]]
  %c0 = arith.constant 0 : index
  %idx = sift.nonzero %m : tensor<100xi1> -> tensor<?xi64>
  %cls = sift.gather %labels[%idx] : tensor<100xi64>, tensor<?xi64> -> tensor<?xi64>
  %n = tensor.dim %idx, %c0 : tensor<?xi64>
  %one = arith.constant 1 : i64
  %ones = tensor.splat %one[%n] : tensor<?xi64>
  %zeros = arith.constant dense<0> : tensor<8xi64>
  %h = sift.scatter %ones into %zeros[%cls] reduce(add) : tensor<?xi64>, tensor<?xi64> into tensor<8xi64>
  return %h : tensor<8xi64>
}

// -----

// Into a bounded dest: the result is bounded with the dest's count; an
// index at or past that count becomes -1. Static indices and updates keep
// their rows.
// CHECK-LABEL: func @into_selection
// CHECK-SAME: -> (tensor<50xf32>, tensor<i64>)
func.func @into_selection(%x: tensor<50xf32>, %m: tensor<50xi1>, %i: tensor<4xi64>, %u: tensor<4xf32>) -> tensor<?xf32> {
  // CHECK: %[[SEL:.*]] = sift.gather %{{.*}}[%{{.*}}] : tensor<50xf32>, tensor<50xi64> -> tensor<50xf32>
  // CHECK: %[[LIMIT:.*]] = tensor.splat %{{.*}} : tensor<4xi64>
  // CHECK: %[[IN:.*]] = arith.cmpi slt, %[[I:.*]], %[[LIMIT]] : tensor<4xi64>
  // CHECK: %[[SAFE:.*]] = arith.select %[[IN]], %[[I]], %{{.*}} : tensor<4xi1>, tensor<4xi64>
  // CHECK: %[[R:.*]] = sift.scatter %{{.*}} into %[[SEL]][%[[SAFE]]] reduce(max) : tensor<4xf32>, tensor<4xi64> into tensor<50xf32>
  // CHECK: return %[[R]], %{{.*}} : tensor<50xf32>, tensor<i64>
  %sel = sift.masked_select %x, %m : tensor<50xf32>, tensor<50xi1> -> tensor<?xf32>
  %r = sift.scatter %u into %sel[%i] reduce(max) : tensor<4xf32>, tensor<4xi64> into tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// Updates sliced by the count: padded to the indices' rows, whose padding
// lanes are -1.
// CHECK-LABEL: func @updates_fit
// CHECK: %[[U:.*]] = sift.gather %{{.*}}[%{{.*}}] : tensor<20xf32>, tensor<10xi64> -> tensor<10xf32>
// CHECK: sift.scatter %[[U]] into %{{.*}}[%{{.*}}] : tensor<10xf32>, tensor<10xi64> into tensor<6xf32>
func.func @updates_fit(%a: tensor<10xi1>, %x: tensor<20xf32>, %d: tensor<6xf32>) -> tensor<6xf32> {
  %c0 = arith.constant 0 : index
  %idx = sift.nonzero %a : tensor<10xi1> -> tensor<?xi64>
  %n = tensor.dim %idx, %c0 : tensor<?xi64>
  %u = tensor.extract_slice %x[0] [%n] [1] : tensor<20xf32> to tensor<?xf32>
  %r = sift.scatter %u into %d[%idx] : tensor<?xf32>, tensor<?xi64> into tensor<6xf32>
  return %r : tensor<6xf32>
}

// expand_shape / collapse_shape of bounded tensors that keep the
// data-dependent dimension leading: the same reshape of the padded tensor.
// Unit dimensions keep the count; a leading group [?, s...] multiplies it by
// s when collapsed and divides it by s when expanded.
// RUN: tensor-opt %s --sift-staticize --sift-verify-static -split-input-file | FileCheck %s

// idx[:, None], then .squeeze(1): the count is unchanged.
// CHECK-LABEL: func @unit_dims
// CHECK-SAME: -> (tensor<40x1xi64>, tensor<i64>, tensor<40xi64>, tensor<i64>)
// CHECK: %[[IDX:.*]], %[[CNT:.*]] = sift.compact
// CHECK: %[[N:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK: %[[COL:.*]] = tensor.expand_shape %[[IDX]] {{\[\[}}0, 1]] output_shape [40, 1] : tensor<40xi64> into tensor<40x1xi64>
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %[[COL]] {{\[\[}}0, 1]] : tensor<40x1xi64> into tensor<40xi64>
// CHECK: %[[C0:.*]] = arith.index_cast %[[N]] : index to i64
// CHECK: %[[T0:.*]] = tensor.from_elements %[[C0]]
// CHECK: %[[C1:.*]] = arith.index_cast %[[N]] : index to i64
// CHECK: %[[T1:.*]] = tensor.from_elements %[[C1]]
// CHECK: return %[[COL]], %[[T0]], %[[FLAT]], %[[T1]]
func.func @unit_dims(%m: tensor<40xi1>) -> (tensor<?x1xi64>, tensor<?xi64>) {
  %c0 = arith.constant 0 : index
  %idx = sift.nonzero %m : tensor<40xi1> -> tensor<?xi64>
  %n = tensor.dim %idx, %c0 : tensor<?xi64>
  %col = tensor.expand_shape %idx [[0, 1]] output_shape [%n, 1] : tensor<?xi64> into tensor<?x1xi64>
  %flat = tensor.collapse_shape %col [[0, 1]] : tensor<?x1xi64> into tensor<?xi64>
  return %col, %flat : tensor<?x1xi64>, tensor<?xi64>
}

// -----

// .view(-1) of [n, 4] rows: 4n valid elements of 4B; .view(-1, 2) of that:
// 2n rows of 2B; trailing groups reshape freely.
// CHECK-LABEL: func @flatten_rows
// CHECK-SAME: -> (tensor<80xf32>, tensor<i64>, tensor<40x2xf32>, tensor<i64>, tensor<20x2x2xf32>, tensor<i64>)
// CHECK: %[[ROWS:.*]] = sift.gather %{{.*}}[%{{.*}}] : tensor<20x4xf32>, tensor<20xi64> -> tensor<20x4xf32>
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %[[ROWS]] {{\[\[}}0, 1]] : tensor<20x4xf32> into tensor<80xf32>
// CHECK: %[[N4:.*]] = arith.muli %[[N:.*]], %c4 : index
// CHECK: %[[PAIRS:.*]] = tensor.expand_shape %[[FLAT]] {{\[\[}}0, 1]] output_shape [40, 2] : tensor<80xf32> into tensor<40x2xf32>
// CHECK: %[[N2:.*]] = arith.divui %[[N4]], %c2{{.*}} : index
// CHECK: %[[BOX:.*]] = tensor.expand_shape %[[ROWS]] {{\[\[}}0], [1, 2]] output_shape [20, 2, 2] : tensor<20x4xf32> into tensor<20x2x2xf32>
// CHECK: arith.index_cast %[[N4]]
// CHECK: arith.index_cast %[[N2]]
// CHECK: arith.index_cast %[[N]]
func.func @flatten_rows(%x: tensor<20x4xf32>, %m: tensor<20xi1>) -> (tensor<?xf32>, tensor<?x2xf32>, tensor<?x2x2xf32>) {
  %c0 = arith.constant 0 : index
  %rows = sift.masked_select %x, %m : tensor<20x4xf32>, tensor<20xi1> -> tensor<?x4xf32>
  %flat = tensor.collapse_shape %rows [[0, 1]] : tensor<?x4xf32> into tensor<?xf32>
  %k = tensor.dim %flat, %c0 : tensor<?xf32>
  %c2 = arith.constant 2 : index
  %h = arith.divui %k, %c2 : index
  %pairs = tensor.expand_shape %flat [[0, 1]] output_shape [%h, 2] : tensor<?xf32> into tensor<?x2xf32>
  %n = tensor.dim %rows, %c0 : tensor<?x4xf32>
  %box = tensor.expand_shape %rows [[0], [1, 2]] output_shape [%n, 2, 2] : tensor<?x4xf32> into tensor<?x2x2xf32>
  return %flat, %pairs, %box : tensor<?xf32>, tensor<?x2xf32>, tensor<?x2x2xf32>
}

// -----

// .view(-1, 2) of a selection padded to 9 rows: the rows are padded up to
// 10 (a gather whose tenth row is fill), then split into 5 pairs; the
// count is n / 2.
// CHECK-LABEL: func @split_not_dividing
// CHECK-SAME: -> (tensor<5x2xi64>, tensor<i64>)
// CHECK: %[[IDX:.*]], %{{.*}} = sift.compact %{{.*}} : tensor<9xi1> -> tensor<9xi64>, tensor<i64>
// CHECK: %[[UP:.*]] = sift.gather %[[IDX]][%{{.*}}] : tensor<9xi64>, tensor<10xi64> -> tensor<10xi64>
// CHECK: tensor.expand_shape %[[UP]] {{\[\[}}0, 1]] output_shape [5, 2] : tensor<10xi64> into tensor<5x2xi64>
// CHECK: arith.divui %{{.*}}, %c2{{.*}} : index
func.func @split_not_dividing(%m: tensor<9xi1>) -> tensor<?x2xi64> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %idx = sift.nonzero %m : tensor<9xi1> -> tensor<?xi64>
  %n = tensor.dim %idx, %c0 : tensor<?xi64>
  %h = arith.divui %n, %c2 : index
  %p = tensor.expand_shape %idx [[0, 1]] output_shape [%h, 2] : tensor<?xi64> into tensor<?x2xi64>
  return %p : tensor<?x2xi64>
}
